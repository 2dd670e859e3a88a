import type { Response, Router } from "express";
import { renderDueDateChargePage } from "../pages/due-date.js";
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
 * - `GET /checkout/charges/{txn}/qr.png` — the QR code of today's amount.
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
    ctx.send(res, 200, renderDueDateChargePage(ctx.frame(res), { transaction: page.transaction, payee }));
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
