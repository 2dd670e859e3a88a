import type { Request, Response } from "express";
import type { CheckoutState, CheckoutUseCases, CheckoutView } from "../../domain/payments/index.js";
import { checkoutPath } from "../paths.js";
import { renderClosedPage } from "../pages/closed.js";
import type { PageFrame, Payee } from "../pages/layout.js";
import { renderMessagePage } from "../pages/message.js";
import type { PayerReader } from "../payer.js";
import { type CheckoutCsrf, cspNonce } from "../security.js";
import type { CheckoutAssets } from "./assets.js";

/**
 * The qrcode package, loaded with the first QR code drawn rather than at start-up (start-up is held
 * to 600 ms, docs/benchmarks.md); a second request while it loads waits for the same import.
 */
export const qrCode = async () => (await import("qrcode")).default;

/** What every route group of the checkout shares: the use cases and how a page is sent. */
export class CheckoutContext {
  constructor(
    readonly checkout: CheckoutUseCases,
    readonly readPayer: PayerReader,
    readonly csrf: CheckoutCsrf,
    private readonly assets: CheckoutAssets,
    /** How often the payment page asks whether the Pix was paid. */
    readonly pollIntervalMs: number,
  ) {}

  /** The request's CSP nonce and our versioned assets. */
  frame(res: Response): PageFrame {
    return {
      nonce: cspNonce(res),
      assets: {
        css: this.assets.path("checkout.css"),
        js: this.assets.path("checkout.js"),
        icon: this.assets.path("icon.svg"),
      },
    };
  }

  payeeOf(view: CheckoutView): Payee {
    return {
      merchantName: view.merchant.name,
      merchantDocument: view.merchant.document,
      testMode: !view.link.livemode,
    };
  }

  /**
   * Who a notice names as the payee: nobody for a link whose charges may not be paid (a production
   * link of an account not verified): a name nobody verified lends a page no credit.
   */
  noticePayeeOf(view: CheckoutView): Payee | null {
    return view.payable ? this.payeeOf(view) : null;
  }

  /** A page, never cached: it shows a payment's state. */
  send(res: Response, status: number, page: string): void {
    res.status(status).setHeader("Cache-Control", "no-store");
    res.type("html").send(page);
  }

  notFoundPage(res: Response): void {
    this.send(
      res,
      404,
      renderMessagePage(this.frame(res), {
        title: "Página não encontrada",
        text: "Confira o endereço do link de pagamento que você recebeu.",
      }),
    );
  }

  /** A form whose CSRF token is not its own (old tab, other browser, forged): reload. */
  staleFormPage(res: Response, view: CheckoutView): void {
    this.send(
      res,
      403,
      renderMessagePage(this.frame(res), {
        title: "Sessão expirada",
        text: "Por segurança, recarregue a página e envie novamente. Nenhum pagamento foi gerado.",
        payee: this.noticePayeeOf(view),
        action: { href: checkoutPath(view.link.id), label: "Recarregar" },
      }),
    );
  }

  /**
   * A link that takes no new payer: `410` when it never will again (deactivated, exhausted,
   * expired); `403` while its account may not take production payments (`ACCOUNT_NOT_ACTIVE`).
   */
  closedPage(res: Response, view: CheckoutView, state: Exclude<CheckoutState, "open">): void {
    const status = state === "accountNotActive" ? 403 : 410;
    const payee = this.noticePayeeOf(view);
    this.send(res, status, renderClosedPage(this.frame(res), { link: view.link, payee, state }));
  }
}

/** A route parameter; "" when absent. */
export const param = (req: Request, name: string): string => {
  const value = (req.params as Record<string, string | undefined>)[name];
  return typeof value === "string" ? value : "";
};

export const LINK_ID = /^plk_[A-Za-z0-9]{1,64}$/;
export const TRANSACTION_ID = /^txn_[A-Za-z0-9]{1,64}$/;
