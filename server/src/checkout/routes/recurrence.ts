import type { Response, Router } from "express";
import { renderMessagePage } from "../pages/message.js";
import { renderRecurrencePage } from "../pages/recurrence.js";
import type { CheckoutContext } from "./context.js";
import { param, qrCode } from "./context.js";

const RECURRENCE_ID = /^rec_[A-Za-z0-9]{1,64}$/;

/**
 * A recurrence's hosted page (Pix Automático), where its BR Code's field 80 points:
 *
 * - `GET /checkout/recurrences/{rec}` — the terms in Portuguese and, while it waits for approval,
 *   the QR code and the copy-and-paste code (`403` "indisponível" instead, with neither, for a
 *   production recurrence of an account not verified);
 * - `GET /checkout/recurrences/{rec}/qr.png` — the QR code of its BR Code.
 */
export function recurrenceRoutes(router: Router, ctx: CheckoutContext): void {
  /** A production recurrence of an account not verified: no terms of a merchant nobody verified, no code. */
  const unavailable = (res: Response) =>
    ctx.send(
      res,
      403,
      renderMessagePage(ctx.frame(res), {
        title: "Autorização indisponível",
        text: "Esta autorização de Pix Automático não está disponível no momento. Nenhum valor foi cobrado. Fale com quem enviou o link.",
      }),
    );
  const find = (id: string) => (RECURRENCE_ID.test(id) ? ctx.checkout.findRecurrence(id) : Promise.resolve(null));

  router.get("/recurrences/:recurrenceId", async (req, res) => {
    const page = await find(param(req, "recurrenceId"));
    if (!page) return ctx.notFoundPage(res);
    if (!page.payable) return unavailable(res);
    const payee = {
      merchantName: page.account.name,
      merchantDocument: page.account.document,
      testMode: !page.recurrence.livemode,
    };
    ctx.send(res, 200, renderRecurrencePage(ctx.frame(res), { ...page, payee }));
  });

  router.get("/recurrences/:recurrenceId/qr.png", async (req, res) => {
    const page = await find(param(req, "recurrenceId"));
    if (!page || page.status !== "CREATED") return ctx.notFoundPage(res);
    if (!page.payable) return unavailable(res);
    const QRCode = await qrCode();
    const png = await QRCode.toBuffer(page.recurrence.brCode, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      width: 480,
    });
    res.setHeader("Cache-Control", "private, max-age=3600");
    res.type("png").send(png);
  });
}
