import express, { type Request, type Response, type Router } from "express";
import { CheckoutClosedError, type CheckoutView } from "../../domain/payments/index.js";
import { DomainError } from "../../domain/core/errors.js";
import { randomBase62 } from "../../domain/core/ids.js";
import { type FormValues, renderFormPage } from "../pages/form.js";
import { chargePath } from "../paths.js";
import type { CheckoutSubmission } from "../payer.js";
import { type CheckoutContext, LINK_ID, param } from "./context.js";

/** One string field of an urlencoded form; anything else (missing, repeated) reads as "". */
export const formField = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

/** The checkout's forms: urlencoded, small, few fields. */
export const formBody = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 50 });

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
 * The payer's form of a link:
 *
 * - `GET  /checkout/{plk}` — the form, or the link's "indisponível" / "esgotado" / expired page
 *   (`403` "indisponível" for a production link of an account not verified: no form, no code);
 * - `POST /checkout/{plk}` — creates the charge (once per form) and redirects (303) to its page;
 *   invalid data answers 422 with the form, the values kept and one error per field; a production
 *   link of an account not verified, `403` (`ACCOUNT_NOT_ACTIVE`) with the "indisponível" page.
 */
export function formRoutes(router: Router, ctx: CheckoutContext): void {
  const formPage = (
    req: Request,
    res: Response,
    view: CheckoutView,
    status: number,
    form: { submissionToken: string; values?: FormValues; errors?: DomainError["errors"] },
  ) =>
    ctx.send(
      res,
      status,
      renderFormPage(ctx.frame(res), {
        link: view.link,
        payee: ctx.payeeOf(view),
        csrfToken: ctx.csrf.issue(req, res, view.link.id),
        submissionToken: form.submissionToken,
        ...(form.values ? { values: form.values } : {}),
        ...(form.errors ? { errors: form.errors } : {}),
      }),
    );

  const findLink = async (req: Request) => {
    const linkId = param(req, "linkId");
    return LINK_ID.test(linkId) ? ctx.checkout.find(linkId) : null;
  };

  router.get("/:linkId", async (req, res) => {
    const view = await findLink(req);
    if (!view) return ctx.notFoundPage(res);
    if (view.state !== "open") return ctx.closedPage(res, view, view.state);
    formPage(req, res, view, 200, { submissionToken: randomBase62(32) });
  });

  router.post("/:linkId", formBody, async (req, res) => {
    const view = await findLink(req);
    if (!view) return ctx.notFoundPage(res);
    const linkId = view.link.id;
    if (!ctx.csrf.verify(req, linkId)) return ctx.staleFormPage(res, view);
    const submissionToken = formField(req.body, "submission");
    const { values, submission } = readSubmission(req.body);
    try {
      const readPayer = (askAddress: boolean) => ctx.readPayer(submission, askAddress);
      const { transaction } = await ctx.checkout.start(linkId, readPayer, submissionToken);
      res.redirect(303, chargePath(linkId, transaction.id));
    } catch (error) {
      if (error instanceof CheckoutClosedError) return ctx.closedPage(res, view, error.state);
      if (error instanceof DomainError && error.code === "ACCOUNT_NOT_ACTIVE") {
        return ctx.closedPage(res, view, "accountNotActive");
      }
      if (error instanceof DomainError && error.code === "VALIDATION_ERROR") {
        return formPage(req, res, view, 422, { submissionToken, values, errors: error.errors ?? [] });
      }
      throw error;
    }
  });
}
