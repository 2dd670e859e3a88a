import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import { type AugmentedRequest, type Store as RateLimitStore, rateLimit } from "express-rate-limit";
import QRCode from "qrcode";
import {
  type CheckoutSubmission,
  CheckoutClosedError,
  type CheckoutView,
  findCheckout,
  findCheckoutCharge,
  simulateCheckoutPayment,
  startCheckout,
} from "../domain/checkout.js";
import { DomainError } from "../domain/errors.js";
import { randomBase62 } from "../domain/ids.js";
import type { Domain } from "../domain/service.js";
import { defaultRateLimits, type RateLimits } from "../http/rate-limit.js";
import {
  chargePath,
  checkoutPath,
  type FormValues,
  type PageFrame,
  type Payee,
  renderChargeEndedPage,
  renderClosedPage,
  renderFormPage,
  renderMessagePage,
  renderPaymentPage,
  renderReceiptPage,
} from "./pages.js";
import { CheckoutCsrf, checkoutSecurityHeaders, cspNonce } from "./security.js";

/** Per-minute, per-IP budgets of the checkout pages: `get` for GET/HEAD, `write` for POST. */
export type CheckoutRateLimits = Pick<RateLimits, "get" | "write">;

export interface CheckoutOptions {
  /** Default: the API's budgets (120 GET and 60 POST per minute per IP); "off" for local test runs. */
  rateLimits?: CheckoutRateLimits | "off";
  /** Shared rate-limit counters (several processes); default: in process memory. */
  rateLimitStore?: ((name: string) => RateLimitStore) | undefined;
  /** Key of the CSRF tokens; processes serving the same checkout must share it. Default: random. */
  csrfSecret?: string | Buffer;
  /** How often the payment page asks whether the Pix was paid. Default 3000 ms. */
  pollIntervalMs?: number;
}

const LINK_ID = /^plk_[A-Za-z0-9]{1,64}$/;
const TRANSACTION_ID = /^txn_[A-Za-z0-9]{1,64}$/;

interface Asset {
  body: Buffer;
  type: string;
  version: string;
}

function loadAsset(file: string, type: string): Asset {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url));
  return { body, type, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

const param = (req: Request, name: string): string => {
  const value = (req.params as Record<string, string | undefined>)[name];
  return typeof value === "string" ? value : "";
};

/** One string field of an urlencoded form; anything else (missing, repeated) reads as "". */
const formField = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

const formFieldNames = [
  "name",
  "email",
  "phone",
  "document",
  "zipCode",
  "street",
  "number",
  "complement",
  "district",
  "city",
  "state",
] as const;

function readSubmission(body: unknown): { values: FormValues; submission: CheckoutSubmission } {
  const values: FormValues = {};
  for (const name of formFieldNames) values[name] = formField(body, name).slice(0, 200);
  const submission: CheckoutSubmission = {
    name: values.name,
    email: values.email,
    phone: values.phone,
    document: values.document,
    address: {
      zipCode: values.zipCode,
      street: values.street,
      number: values.number,
      complement: values.complement,
      district: values.district,
      city: values.city,
      state: values.state,
    },
  };
  return { values, submission };
}

/**
 * The hosted checkout (seed §1, §2.3, §3.2), mounted at the app's root before the API:
 *
 * - `GET  /checkout/assets/checkout.(css|js)` — our only stylesheet and script;
 * - `GET  /checkout/{plk}` — the payer's form, or the link's "indisponível" / "esgotado" / expired page;
 * - `POST /checkout/{plk}` — creates the charge (once per form) and redirects (303) to its page;
 * - `GET  /checkout/{plk}/t/{txn}` — the Pix to pay, then the receipt once paid;
 * - `GET  /checkout/{plk}/t/{txn}/qr.png` — the QR code of the BR Code;
 * - `GET  /checkout/{plk}/t/{txn}/status` — `{ status, remainingSeconds }`, polled by the page;
 * - `POST /checkout/{plk}/t/{txn}/simulate` — test links only: "Simular pagamento".
 *
 * Links are built relative to this server, whatever `publicBaseUrl` says.
 */
export function checkoutRouter(domain: Domain, options: CheckoutOptions = {}): Router {
  const deps = domain.deps;
  const csrf = new CheckoutCsrf(options.csrfSecret);
  const pollIntervalMs = options.pollIntervalMs ?? 3000;
  const assets = new Map<string, Asset>([
    ["checkout.css", loadAsset("checkout.css", "text/css; charset=utf-8")],
    ["checkout.js", loadAsset("checkout.js", "text/javascript; charset=utf-8")],
    ["icon.svg", loadAsset("icon.svg", "image/svg+xml")],
  ]);
  const assetPath = (file: string) => `/checkout/assets/${file}?v=${assets.get(file)?.version ?? ""}`;
  const frame = (res: Response): PageFrame => ({
    nonce: cspNonce(res),
    assets: { css: assetPath("checkout.css"), js: assetPath("checkout.js"), icon: assetPath("icon.svg") },
  });
  const payeeOf = (view: CheckoutView): Payee => ({ merchantName: view.account.name, testMode: !view.link.livemode });
  const now = () => deps.clock.now().toISOString();

  const send = (res: Response, status: number, page: string) => {
    res.status(status).setHeader("Cache-Control", "no-store");
    res.type("html").send(page);
  };
  const notFoundPage = (res: Response) =>
    send(
      res,
      404,
      renderMessagePage(frame(res), {
        title: "Página não encontrada",
        text: "Confira o endereço do link de pagamento que você recebeu.",
      }),
    );
  const staleFormPage = (res: Response, view: CheckoutView) =>
    send(
      res,
      403,
      renderMessagePage(frame(res), {
        title: "Sessão expirada",
        text: "Por segurança, recarregue a página e envie novamente. Nenhum pagamento foi gerado.",
        payee: payeeOf(view),
        action: { href: checkoutPath(view.link.id), label: "Recarregar" },
      }),
    );
  const closedPage = (res: Response, view: CheckoutView, state: CheckoutClosedError["state"]) =>
    send(res, 410, renderClosedPage(frame(res), { link: view.link, payee: payeeOf(view), state }));

  const formPage = (
    req: Request,
    res: Response,
    view: CheckoutView,
    status: number,
    form: { submissionToken: string; values?: FormValues; errors?: DomainError["errors"] },
  ) =>
    send(
      res,
      status,
      renderFormPage(frame(res), {
        link: view.link,
        payee: payeeOf(view),
        csrfToken: csrf.issue(req, res, view.link.id),
        submissionToken: form.submissionToken,
        ...(form.values ? { values: form.values } : {}),
        ...(form.errors ? { errors: form.errors } : {}),
      }),
    );

  const pages = express.Router({ caseSensitive: true, strict: true });
  pages.use(checkoutSecurityHeaders);

  pages.get("/assets/:file", (req, res) => {
    const asset = assets.get(param(req, "file"));
    if (!asset) return notFoundPage(res);
    const versioned = req.query.v === asset.version;
    res.setHeader("Cache-Control", versioned ? "public, max-age=31536000, immutable" : "no-cache");
    res.type(asset.type).send(asset.body);
  });

  if (options.rateLimits !== "off") {
    for (const limiter of checkoutLimiters(options.rateLimits ?? defaultRateLimits, options.rateLimitStore, frame)) {
      pages.use(limiter);
    }
  }

  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 50 });

  pages.get("/:linkId", async (req, res) => {
    const linkId = param(req, "linkId");
    const view = LINK_ID.test(linkId) ? await findCheckout(deps, linkId) : null;
    if (!view) return notFoundPage(res);
    if (view.state !== "open") return closedPage(res, view, view.state);
    formPage(req, res, view, 200, { submissionToken: randomBase62(32) });
  });

  pages.post("/:linkId", form, async (req, res) => {
    const linkId = param(req, "linkId");
    const view = LINK_ID.test(linkId) ? await findCheckout(deps, linkId) : null;
    if (!view) return notFoundPage(res);
    if (!csrf.verify(req, linkId)) return staleFormPage(res, view);
    const submissionToken = formField(req.body, "submission");
    const { values, submission } = readSubmission(req.body);
    try {
      const { transaction } = await startCheckout(deps, linkId, submission, submissionToken);
      res.redirect(303, chargePath(linkId, transaction.id));
    } catch (error) {
      if (error instanceof CheckoutClosedError) return closedPage(res, view, error.state);
      if (error instanceof DomainError && error.code === "VALIDATION_ERROR") {
        return formPage(req, res, view, 422, { submissionToken, values, errors: error.errors ?? [] });
      }
      throw error;
    }
  });

  pages.get("/:linkId/t/:transactionId", async (req, res) => {
    const found = await chargeOf(req);
    if (!found) return notFoundPage(res);
    const { link, transaction, status } = found;
    const payee = payeeOf(found);
    if (status === "PAID") {
      return send(res, 200, renderReceiptPage(frame(res), { link, transaction, payee }));
    }
    if (status === "WAITING_PAYMENT" || status === "PENDING" || status === "PROCESSING") {
      const remainingSeconds = (new Date(transaction.expiresAt).getTime() - new Date(now()).getTime()) / 1000;
      const simulateCsrfToken = link.livemode ? null : csrf.issue(req, res, `${link.id}/${transaction.id}`);
      return send(
        res,
        200,
        renderPaymentPage(frame(res), {
          link,
          transaction,
          payee,
          remainingSeconds,
          pollIntervalMs,
          simulateCsrfToken,
        }),
      );
    }
    send(
      res,
      200,
      renderChargeEndedPage(frame(res), {
        link,
        transaction,
        payee,
        expired: status === "EXPIRED",
        linkOpen: found.state === "open",
      }),
    );
  });

  pages.get("/:linkId/t/:transactionId/qr.png", async (req, res) => {
    const found = await chargeOf(req);
    if (!found) return notFoundPage(res);
    const png = await QRCode.toBuffer(found.transaction.brCode, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      width: 480,
    });
    res.setHeader("Cache-Control", "private, max-age=3600");
    res.type("png").send(png);
  });

  pages.get("/:linkId/t/:transactionId/status", async (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    const found = await chargeOf(req);
    if (!found) return void res.status(404).json({ status: null });
    const remainingSeconds = Math.max(
      0,
      Math.floor((new Date(found.transaction.expiresAt).getTime() - new Date(now()).getTime()) / 1000),
    );
    res.json({ status: found.status, remainingSeconds });
  });

  pages.post("/:linkId/t/:transactionId/simulate", form, async (req, res) => {
    const found = await chargeOf(req);
    if (!found) return notFoundPage(res);
    const { link, transaction } = found;
    if (link.livemode) {
      return send(
        res,
        403,
        renderMessagePage(frame(res), {
          title: "Simulação indisponível",
          text: "A simulação de pagamento só existe em links de teste.",
          payee: payeeOf(found),
          action: { href: chargePath(link.id, transaction.id), label: "Voltar ao pagamento" },
        }),
      );
    }
    if (!csrf.verify(req, `${link.id}/${transaction.id}`)) return staleFormPage(res, found);
    await simulateCheckoutPayment(deps, link.id, transaction.id);
    res.redirect(303, chargePath(link.id, transaction.id));
  });

  async function chargeOf(req: Request) {
    const linkId = param(req, "linkId");
    const transactionId = param(req, "transactionId");
    if (!LINK_ID.test(linkId) || !TRANSACTION_ID.test(transactionId)) return null;
    return findCheckoutCharge(deps, linkId, transactionId);
  }

  pages.use((_req, res) => notFoundPage(res));

  const failure: ErrorRequestHandler = (err, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (err instanceof DomainError && err.code === "NOT_FOUND") return notFoundPage(res);
    if (err instanceof DomainError && err.status < 500) {
      return send(
        res,
        err.status,
        renderMessagePage(frame(res), { title: "Não foi possível continuar", text: err.message }),
      );
    }
    const status = (err as { status?: number }).status;
    if (status === 413 || (status === 400 && (err as { type?: string }).type !== undefined)) {
      return send(
        res,
        status,
        renderMessagePage(frame(res), { title: "Dados inválidos", text: "Recarregue a página." }),
      );
    }
    const requestId = String(res.getHeader("x-request-id") ?? "");
    deps.logger.error({ err, requestId, path: req.path }, "checkout failure");
    send(
      res,
      500,
      renderMessagePage(frame(res), {
        title: "Algo deu errado",
        text: `Tente novamente em instantes.${requestId ? ` Código do erro: ${requestId}.` : ""}`,
      }),
    );
  };
  pages.use(failure);

  const router = express.Router({ caseSensitive: true, strict: true });
  router.use("/checkout", pages);
  return router;
}

/** Per-IP budgets over one minute, as for the API (seed §8); over budget: 429 with `Retry-After`. */
function checkoutLimiters(
  limits: CheckoutRateLimits,
  makeStore: ((name: string) => RateLimitStore) | undefined,
  frame: (res: Response) => PageFrame,
): RequestHandler[] {
  const limiter = (name: string, limit: number, methods: string[]) =>
    rateLimit({
      windowMs: 60_000,
      limit,
      standardHeaders: "draft-7",
      legacyHeaders: false,
      skip: (req) => !methods.includes(req.method),
      ...(makeStore ? { store: makeStore(`checkout-${name}`) } : {}),
      handler: (req, res) => {
        const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + 60_000;
        const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
        res.setHeader("Retry-After", String(seconds));
        res.status(429).setHeader("Cache-Control", "no-store");
        res.type("html").send(
          renderMessagePage(frame(res), {
            title: "Muitas tentativas",
            text: `Aguarde ${seconds} segundos e tente novamente.`,
          }),
        );
      },
    });
  return [limiter("get", limits.get, ["GET", "HEAD"]), limiter("write", limits.write, ["POST"])];
}
