import { createRequire } from "node:module";
import type { Ajv as AjvClass, ValidateFunction } from "ajv";
import type addFormatsFunction from "ajv-formats";
import type { CheckoutPayer, PayerReading } from "../domain/payments/index.js";
import type { FieldError } from "../domain/core/errors.js";
import { fieldErrorsOf, validationPath } from "../http/kit/validation-messages.js";
import { localSchemaRefs, readOpenApiDocument } from "../http/kit/openapi-document.js";
import { parseDocument } from "../pix/documents.js";

// The payer's data, read from the checkout form with the spec's own rules: the `ChargeCustomerInput`
// schema of the published OpenAPI document, compiled once with Ajv (the API's validator is Ajv
// too, with the same "full" formats), and its errors in the API's Portuguese. The document's check
// digits, which no schema can say, go through `parseDocument` as in the API.

const addressFields = ["zipCode", "street", "number", "complement", "district", "city", "state"] as const;
type AddressField = (typeof addressFields)[number];

/** What the payer typed, as typed: masks and punctuation included. */
export interface CheckoutSubmission {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  document?: string | undefined;
  address?: Partial<Record<AddressField, string | undefined>> | undefined;
}

/**
 * What the checkout asks beyond the API when a link asks for the address (the API takes any subset
 * of the address): every field but the complement. The CEP and state rules are the spec's own.
 */
const checkoutAddressRule = {
  type: "object",
  required: ["address"],
  properties: {
    address: {
      type: "object",
      required: ["zipCode", "street", "number", "district", "city", "state"],
    },
  },
};

/** The messages of the one rule no schema can say: a CPF or CNPJ and its check digits. */
function documentProblem(typed: string): string {
  const parsed = parseDocument(typed);
  if (typed === "") return "Informe seu CPF ou CNPJ.";
  if (!parsed.ok && parsed.reason === "FORMAT") return "Informe um CPF (11 dígitos) ou um CNPJ (14 caracteres).";
  const kind = typed.replace(/[^0-9A-Za-z]/g, "").length > 11 ? "CNPJ" : "CPF";
  return `${kind} inválido: confira os números digitados.`;
}

interface PayerValidators {
  withoutAddress: ValidateFunction;
  withAddress: ValidateFunction;
}

const compiled = new Map<string, PayerValidators>();

/**
 * Compiles the payer's schemas. Only the document's schemas go in, as `$defs` of each compiled
 * schema, so Ajv compiles what the payer reaches and not every component of the document (that
 * took most of a second at start-up); and it runs at the first checkout submission, not at start.
 */
function compile(documentPath: string): PayerValidators {
  const cached = compiled.get(documentPath);
  if (cached) return cached;
  const doc = readOpenApiDocument(documentPath) as { components: { schemas: unknown } };
  const $defs = localSchemaRefs(doc.components.schemas);
  // Ajv is required here, at the first submission, not imported: loading it was part of every
  // start-up (docs/benchmarks.md, "Start-up").
  const require = createRequire(import.meta.url);
  const { Ajv } = require("ajv") as { Ajv: typeof AjvClass };
  const addFormats = require("ajv-formats") as typeof addFormatsFunction;
  // `verbose` gives each error its schema, so a length rule is said whole ("de 2 a 120").
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  addFormats.default(ajv, { mode: "full" });
  const payer = { $ref: "#/$defs/ChargeCustomerInput" };
  const validators = {
    withoutAddress: ajv.compile({ $defs, ...payer }),
    withAddress: ajv.compile({ $defs, allOf: [payer, checkoutAddressRule] }),
  };
  compiled.set(documentPath, validators);
  return validators;
}

const fieldOrder = ["name", "email", "phone", "document", ...addressFields.map((f) => `address.${f}`)];
/** Where a field is on the form, so errors are listed as the payer reads the page. */
const formOrder = (path: string) => {
  const at = fieldOrder.indexOf(path);
  return at === -1 ? fieldOrder.length : at;
};

const PHONE_PUNCTUATION = /[\s().+-]/g;

/** The submission as the API would receive it: trimmed, unmasked; an empty field is not sent. */
function candidateOf(input: CheckoutSubmission, askAddress: boolean, document: ReturnType<typeof parseDocument>) {
  const given = (value: string) => (value === "" ? undefined : value);
  const candidate: Record<string, unknown> = {
    name: given((input.name ?? "").trim().replace(/\s+/g, " ")),
    email: given((input.email ?? "").trim()),
    phone: given((input.phone ?? "").replace(PHONE_PUNCTUATION, "")),
    ...(document.ok ? { documentType: document.documentType, document: document.document } : {}),
  };
  if (askAddress) {
    const address: Record<string, string | null | undefined> = {};
    for (const field of addressFields) {
      let value = (input.address?.[field] ?? "").trim();
      if (field === "zipCode") value = value.replace(/[\s.-]/g, "");
      if (field === "state") value = value.toUpperCase();
      address[field] = value === "" ? (field === "complement" ? null : undefined) : value;
    }
    candidate.address = address;
  }
  return JSON.parse(JSON.stringify(candidate)) as Record<string, unknown>;
}

/**
 * A reader of the checkout's payer, compiled once from the published document at `documentPath`.
 * Every problem is reported at once, one message per field, as the API words it; the document's
 * messages are the checkout's own (the API says the same with `REQUEST_ERROR`).
 */
export function payerReader(documentPath: string) {
  return (input: CheckoutSubmission, askAddress: boolean): PayerReading => {
    const validators = compile(documentPath);
    const typedDocument = (input.document ?? "").trim();
    const document = parseDocument(typedDocument);
    const candidate = candidateOf(input, askAddress, document);
    const validate = askAddress ? validators.withAddress : validators.withoutAddress;
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    const add = (error: FieldError) => {
      if (seen.has(error.path)) return;
      seen.add(error.path);
      errors.push(error);
    };
    if (!document.ok) add({ path: "document", message: documentProblem(typedDocument) });
    if (!validate(candidate)) {
      // Each Ajv error in the API's words: its path and Portuguese message, a length rule said
      // whole from the field's schema ("de 2 a 120").
      const items = (validate.errors ?? []).map((error) => ({
        error,
        path: validationPath(error),
        bounds: error.parentSchema as { minLength?: number; maxLength?: number; pattern?: string } | undefined,
      }));
      for (const item of fieldErrorsOf(items, Number.POSITIVE_INFINITY)) {
        if (item.path !== "documentType") add(item);
      }
    }
    if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => formOrder(a.path) - formOrder(b.path)) };
    return { ok: true, payer: candidate as unknown as CheckoutPayer };
  };
}

export type PayerReader = ReturnType<typeof payerReader>;
