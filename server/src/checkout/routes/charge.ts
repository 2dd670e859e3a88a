import type { Request, Router } from "express";
import { renderChargeEndedPage } from "../pages/closed.js";
import { renderMessagePage } from "../pages/message.js";
import { renderPaymentPage } from "../pages/payment.js";
import { renderReceiptPage } from "../pages/receipt.js";
import { chargePath } from "../paths.js";
import { type CheckoutContext, LINK_ID, param, qrCode, TRANSACTION_ID } from "./context.js";
import { formBody } from "./form.js";

/**
 * A charge the link generated:
 *
 * - `GET  /checkout/{plk}/t/{txn}` — the Pix to pay, then the receipt once paid; while the link's
 *   account may not take production payments, the "indisponível" page (`403`) instead of the Pix;
 * - `GET  /checkout/{plk}/t/{txn}/qr.png` — the QR code of the BR Code (not while unpayable);
 * - `GET  /checkout/{plk}/t/{txn}/status` — `{ status, remainingSeconds }`, polled by the page;
 * - `POST /checkout/{plk}/t/{txn}/simulate` — test links only: "Simular pagamento".
 */
export function chargeRoutes(router: Router, ctx: CheckoutContext): void {
  const chargeOf = async (req: Request) => {
    const linkId = param(req, "linkId");
    const transactionId = param(req, "transactionId");
    if (!LINK_ID.test(linkId) || !TRANSACTION_ID.test(transactionId)) return null;
    return ctx.checkout.findCharge(linkId, transactionId);
  };

  router.get("/:linkId/t/:transactionId", async (req, res) => {
    const found = await chargeOf(req);
    if (!found) return ctx.notFoundPage(res);
    const { link, transaction, status } = found;
    const payee = ctx.payeeOf(found);
    const frame = ctx.frame(res);
    if (status === "PAID") {
      return ctx.send(res, 200, renderReceiptPage(frame, { link, transaction, payee }));
    }
    if (status === "WAITING_PAYMENT" || status === "PENDING" || status === "PROCESSING") {
      // A charge made before its account lost the verification (or never had it) shows no code.
      if (!found.payable) return ctx.closedPage(res, found, "accountNotActive");
      const simulateCsrfToken = link.livemode ? null : ctx.csrf.issue(req, res, `${link.id}/${transaction.id}`);
      return ctx.send(
        res,
        200,
        renderPaymentPage(frame, {
          link,
          transaction,
          payee,
          remainingSeconds: ctx.checkout.secondsUntil(transaction.expiresAt),
          pollIntervalMs: ctx.pollIntervalMs,
          simulateCsrfToken,
        }),
      );
    }
    const ended = { link, transaction, payee, expired: status === "EXPIRED", linkOpen: found.state === "open" };
    ctx.send(res, 200, renderChargeEndedPage(frame, ended));
  });

  router.get("/:linkId/t/:transactionId/qr.png", async (req, res) => {
    const found = await chargeOf(req);
    if (!found) return ctx.notFoundPage(res);
    if (!found.payable) return ctx.closedPage(res, found, "accountNotActive");
    const QRCode = await qrCode();
    const png = await QRCode.toBuffer(found.transaction.brCode, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      width: 480,
    });
    res.setHeader("Cache-Control", "private, max-age=3600");
    res.type("png").send(png);
  });

  router.get("/:linkId/t/:transactionId/status", async (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    const found = await chargeOf(req);
    if (!found) return void res.status(404).json({ status: null });
    const remainingSeconds = Math.max(0, Math.floor(ctx.checkout.secondsUntil(found.transaction.expiresAt)));
    res.json({ status: found.status, remainingSeconds });
  });

  router.post("/:linkId/t/:transactionId/simulate", formBody, async (req, res) => {
    const found = await chargeOf(req);
    if (!found) return ctx.notFoundPage(res);
    const { link, transaction } = found;
    if (link.livemode) {
      return ctx.send(
        res,
        403,
        renderMessagePage(ctx.frame(res), {
          title: "Simulação indisponível",
          text: "A simulação de pagamento só existe em links de teste.",
          payee: ctx.payeeOf(found),
          action: { href: chargePath(link.id, transaction.id), label: "Voltar ao pagamento" },
        }),
      );
    }
    if (!ctx.csrf.verify(req, `${link.id}/${transaction.id}`)) return ctx.staleFormPage(res, found);
    await ctx.checkout.simulatePayment(link.id, transaction.id);
    res.redirect(303, chargePath(link.id, transaction.id));
  });
}
