import type { Response, Router } from "express";
import { DomainError } from "../../domain/core/errors.js";
import { renderDueDateChargePage } from "../pages/due-date.js";
import { dueDateChargePath } from "../paths.js";
import { formBody, formField } from "./form.js";
import { renderMessagePage } from "../pages/message.js";
import type { CheckoutContext } from "./context.js";
import { param, qrCode } from "./context.js";

const TRANSACTION_ID = /^txn_[A-Za-z0-9]{1,64}$/;

/**
 * A charge with a due date's hosted page (issue 38; record 0053):
 *
 * - `GET /checkout/charges/{txn}` — the due date, the amount due today and its breakdown in
 *   Portuguese, and while it waits for payment the QR code and copy-and-paste code of today's
 *   amount; once paid, the receipt with the breakdown paid;
 * - `GET /checkout/charges/{txn}/qr.png` — the QR code of today's amount;
 * - `POST /checkout/charges/{txn}/simulate` — test charges only: "Simular pagamento" on the date
 *   the form gives (`paymentDate`, default today), with its CSRF token.
 */
export function dueDateChargeRoutes(router: Router, ctx: CheckoutContext): void {
  const unavailable = (res: Response) =>
    ctx.send(
      res,
      403,
      renderMessagePage(ctx.frame(res), {
        title: "Cobrança indisponível",
        text: "Esta cobrança não está disponível no momento. Nenhum valor foi cobrado. Fale com quem enviou o link.",
      }),
    );
  const find = (id: string) => (TRANSACTION_ID.test(id) ? ctx.checkout.findDueDateCharge(id) : Promise.resolve(null));

  router.get("/charges/:transactionId", async (req, res) => {
    const page = await find(param(req, "transactionId"));
    if (!page) return ctx.notFoundPage(res);
    if (!page.payable) return unavailable(res);
    const payee = {
      merchantName: page.account.name,
      merchantDocument: page.account.document,
      testMode: !page.transaction.livemode,
    };
    const simulateCsrfToken =
      !page.transaction.livemode && page.transaction.status === "WAITING_PAYMENT"
        ? ctx.csrf.issue(req, res, page.transaction.id)
        : null;
    ctx.send(
      res,
      200,
      renderDueDateChargePage(ctx.frame(res), { transaction: page.transaction, payee, simulateCsrfToken }),
    );
  });

  router.post("/charges/:transactionId/simulate", formBody, async (req, res) => {
    const page = await find(param(req, "transactionId"));
    if (!page) return ctx.notFoundPage(res);
    const back = { href: dueDateChargePath(page.transaction.id), label: "Voltar à cobrança" };
    const refuse = (status: number, title: string, text: string) =>
      ctx.send(res, status, renderMessagePage(ctx.frame(res), { title, text, action: back }));
    if (page.transaction.livemode) {
      return refuse(403, "Simulação indisponível", "A simulação de pagamento só existe em cobranças de teste.");
    }
    if (!ctx.csrf.verify(req, page.transaction.id)) {
      return refuse(403, "Sessão expirada", "Por segurança, recarregue a página e tente de novo. Nada foi pago.");
    }
    const date = formField(req.body, "paymentDate");
    try {
      await ctx.checkout.simulateDueDatePayment(page.transaction.id, date === "" ? undefined : date);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status >= 500) throw error;
      const detail = error.errors?.map((e) => `Data de pagamento: ${e.message}.`).join(" ") ?? error.message;
      return refuse(error.status, "Pagamento não simulado", detail);
    }
    res.redirect(303, dueDateChargePath(page.transaction.id));
  });

  router.get("/charges/:transactionId/qr.png", async (req, res) => {
    const page = await find(param(req, "transactionId"));
    if (!page || page.transaction.status !== "WAITING_PAYMENT") return ctx.notFoundPage(res);
    if (!page.payable) return unavailable(res);
    const QRCode = await qrCode();
    const png = await QRCode.toBuffer(page.transaction.pix.copyPaste, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      width: 480,
    });
    // Today's amount: the code changes with the day.
    res.setHeader("Cache-Control", "private, no-store");
    res.type("png").send(png);
  });
}
