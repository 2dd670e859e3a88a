import { parseDocument } from "../pix/documents.js";
import { creditPaidCharge, insertCharge } from "./charges.js";
import type { DomainDeps } from "./deps.js";
import { DomainError, type FieldError, notFound } from "./errors.js";
import { once } from "./idempotency.js";
import type { Account, DocumentType, PaymentLinkRecord, Schemas, Scope, TransactionRecord } from "./model.js";
import { effectiveStatus } from "./presenters.js";

// The hosted checkout (seed §1, §2.3, §3.2): a payer opens a payment link's `url`, fills in their
// data, pays the Pix it generates and sees a receipt. The pages find a link by its id alone.

/** Whether a link's checkout takes new payers, and if not, why (seed §3.2). */
export type CheckoutState = "open" | "unavailable" | "exhausted" | "expired";

export function checkoutState(link: PaymentLinkRecord, now: string): CheckoutState {
  if (link.maxPayments !== null && link.paymentsCount >= link.maxPayments) return "exhausted";
  if (!link.active) return "unavailable";
  if (link.expiresAt !== null && link.expiresAt <= now) return "expired";
  return "open";
}

/** A new payer arrived at a link that no longer takes them: deactivated, exhausted or expired. */
export class CheckoutClosedError extends Error {
  constructor(readonly state: Exclude<CheckoutState, "open">) {
    super(`payment link checkout is ${state}`);
    this.name = "CheckoutClosedError";
  }
}

const addressFields = ["zipCode", "street", "number", "complement", "district", "city", "state"] as const;
export type AddressField = (typeof addressFields)[number];

/** What the payer typed, as typed: masks and punctuation included. */
export interface CheckoutSubmission {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  document?: string | undefined;
  address?: Partial<Record<AddressField, string | undefined>> | undefined;
}

/** The payer of a checkout, checked and normalised: the customer of the charge it creates. */
export type CheckoutPayer = Schemas["ChargeCustomerInput"];

/** The 27 federative units a Brazilian address can be in. */
export const brazilianStates = [
  "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA", "PB",
  "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO",
] as const; // prettier-ignore

/** The e-mail format the API's validator applies (ajv-formats, "full" mode). */
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const PHONE_PUNCTUATION = /[\s().+-]/g;

/** Address limits of seed §2.2; the checkout also requires the fields a delivery needs. */
const addressRules: Record<AddressField, { label: string; required: boolean; max?: number }> = {
  zipCode: { label: "o CEP", required: true },
  street: { label: "a rua", required: true, max: 160 },
  number: { label: "o número", required: true, max: 20 },
  complement: { label: "o complemento", required: false, max: 80 },
  district: { label: "o bairro", required: true, max: 80 },
  city: { label: "a cidade", required: true, max: 80 },
  state: { label: "o estado", required: true },
};

const documentLabel = (kind: DocumentType) => (kind === "CNPJ" ? "CNPJ" : "CPF");

/**
 * Checks a payer's data with the API's rules (name 2 to 120 characters, e-mail format and at most
 * 160, phone 8 to 20 digits, a CPF or CNPJ whose check digits match) plus, when the link asks for
 * it, the address: CEP of 8 digits, a state, and the seed's maximum lengths. Every problem is
 * reported at once, one message per field, in Portuguese for the payer.
 */
export function readCheckoutPayer(
  input: CheckoutSubmission,
  askAddress: boolean,
): { ok: true; payer: CheckoutPayer } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });

  const name = (input.name ?? "").trim().replace(/\s+/g, " ");
  if (name.length < 2 || name.length > 120) fail("name", "Informe seu nome completo (de 2 a 120 caracteres).");

  const email = (input.email ?? "").trim();
  if (email === "") fail("email", "Informe seu e-mail.");
  else if (email.length > 160 || !EMAIL.test(email))
    fail("email", "Informe um e-mail válido, como nome@exemplo.com.br.");

  const phone = (input.phone ?? "").replace(PHONE_PUNCTUATION, "");
  if (phone === "") fail("phone", "Informe seu telefone com DDD.");
  else if (!/^\d{8,20}$/.test(phone)) fail("phone", "Informe o telefone com DDD: de 8 a 20 dígitos.");

  const rawDocument = (input.document ?? "").trim();
  const parsed = parseDocument(rawDocument);
  if (rawDocument === "") fail("document", "Informe seu CPF ou CNPJ.");
  else if (!parsed.ok && parsed.reason === "FORMAT") {
    fail("document", "Informe um CPF (11 dígitos) ou um CNPJ (14 caracteres).");
  } else if (!parsed.ok) {
    const kind = rawDocument.replace(/[^0-9A-Za-z]/g, "").length > 11 ? "CNPJ" : "CPF";
    fail("document", `${documentLabel(kind)} inválido: confira os números digitados.`);
  }

  let address: Schemas["AddressInput"] | undefined;
  if (askAddress) {
    address = {};
    for (const field of addressFields) {
      const rule = addressRules[field];
      const value = (input.address?.[field] ?? "").trim();
      const path = `address.${field}`;
      if (value === "") {
        if (rule.required) fail(path, `Informe ${rule.label}.`);
        else address[field] = null;
        continue;
      }
      if (field === "zipCode") {
        const digits = value.replace(/[\s.-]/g, "");
        if (/^\d{8}$/.test(digits)) address.zipCode = digits;
        else fail(path, "Informe o CEP com 8 dígitos.");
      } else if (field === "state") {
        const uf = value.toUpperCase();
        if ((brazilianStates as readonly string[]).includes(uf)) address.state = uf;
        else fail(path, "Escolha o estado.");
      } else if (rule.max !== undefined && value.length > rule.max) {
        fail(path, `Use no máximo ${rule.max} caracteres.`);
      } else {
        address[field] = value;
      }
    }
  }

  if (errors.length > 0 || !parsed.ok) return { ok: false, errors };
  return {
    ok: true,
    payer: {
      name,
      email,
      phone,
      documentType: parsed.documentType,
      document: parsed.document,
      ...(address ? { address } : {}),
    },
  };
}

/** A link as its checkout sees it: the link, the receiving account, and whether it takes payers. */
export interface CheckoutView {
  link: PaymentLinkRecord;
  account: Account;
  state: CheckoutState;
}

/** The checkout of a link, by the link's id alone; null when there is no such link. */
export async function findCheckout(deps: DomainDeps, linkId: string): Promise<CheckoutView | null> {
  const link = await deps.store.read.paymentLinks.getById(linkId);
  if (!link) return null;
  const account = await deps.store.read.accounts.get(link.accountId);
  if (!account) return null;
  return { link, account, state: checkoutState(link, deps.clock.now().toISOString()) };
}

/** A submission token as the checkout form issues it (random base62). */
const SUBMISSION_TOKEN = /^[A-Za-z0-9]{16,64}$/;

/**
 * A payer submits the checkout form: creates the link's charge (`paymentLinkId` set) and upserts
 * the payer as a customer, in one transaction under the link's scope lock.
 *
 * Runs once per `submissionToken` (the form's own random token), through the same idempotency
 * records as `idempotency-key` with operation "checkout": refreshing, resubmitting or
 * double-clicking the same form returns the charge it first created, even after the link has
 * since been exhausted or deactivated. A new charge needs a freshly loaded form.
 *
 * Refuses with `CheckoutClosedError` a link that is deactivated, exhausted or expired, with
 * `VALIDATION_ERROR` (one item per field) invalid payer data, and with `NOT_FOUND` an unknown link.
 */
export async function startCheckout(
  deps: DomainDeps,
  linkId: string,
  submission: CheckoutSubmission,
  submissionToken: string,
): Promise<{ transaction: TransactionRecord; replayed: boolean }> {
  const found = await deps.store.read.paymentLinks.getById(linkId);
  if (!found) throw notFound();
  if (!SUBMISSION_TOKEN.test(submissionToken)) {
    throw new DomainError("REQUEST_ERROR", "Formulário inválido: recarregue a página e tente novamente.");
  }
  const scope: Scope = { accountId: found.accountId, livemode: found.livemode };
  const at = deps.clock.now().toISOString();
  return deps.store.transaction(async (tx) => {
    await tx.lockScope(scope);
    const outcome = await once(tx, scope, "checkout", submissionToken, { paymentLinkId: linkId }, at, async () => {
      const link = await tx.paymentLinks.get(scope, linkId);
      if (!link) throw notFound();
      const state = checkoutState(link, at);
      if (state !== "open") throw new CheckoutClosedError(state);
      const read = readCheckoutPayer(submission, link.askAddress);
      if (!read.ok) throw new DomainError("VALIDATION_ERROR", "Dados inválidos.", { errors: read.errors });
      const account = await tx.accounts.get(link.accountId);
      if (!account) throw notFound();
      const charge = await insertCharge(
        deps,
        tx,
        scope,
        account,
        { amountCents: link.amountCents, description: link.description, customer: read.payer },
        at,
        link,
      );
      return { status: 201, body: { transactionId: charge.id } };
    });
    const transaction = await tx.transactions.get(scope, outcome.body.transactionId);
    if (!transaction) throw notFound();
    return { transaction, replayed: outcome.replayed };
  });
}

/** A charge as its checkout page sees it. */
export interface CheckoutCharge extends CheckoutView {
  transaction: TransactionRecord;
  /** The status the payer sees: an unpaid Pix past `expiresAt` is `EXPIRED`. */
  status: Schemas["TransactionStatus"];
}

/**
 * A charge of the link, by ids alone; null unless the transaction exists and was generated by this
 * link. The link's state does not matter: a charge generated earlier stays payable (seed §3.2).
 */
export async function findCheckoutCharge(
  deps: DomainDeps,
  linkId: string,
  transactionId: string,
): Promise<CheckoutCharge | null> {
  const view = await findCheckout(deps, linkId);
  if (!view) return null;
  const transaction = await deps.store.read.transactions.getById(transactionId);
  if (!transaction || !belongsTo(transaction, view.link)) return null;
  return { ...view, transaction, status: effectiveStatus(transaction, deps.clock.now().toISOString()) };
}

const belongsTo = (t: TransactionRecord, link: PaymentLinkRecord) =>
  t.paymentLinkId === link.id && t.accountId === link.accountId && t.livemode === link.livemode;

/**
 * Test mode only: the checkout's "Simular pagamento" pays the charge as if the payer had (seed
 * §3.1, §4.15). A charge already paid is returned as it is, so a repeated click changes nothing.
 */
export async function simulateCheckoutPayment(
  deps: DomainDeps,
  linkId: string,
  transactionId: string,
): Promise<TransactionRecord> {
  const found = await findCheckoutCharge(deps, linkId, transactionId);
  if (!found) throw notFound();
  if (found.transaction.livemode) {
    throw new DomainError("TEST_MODE_ONLY", "A simulação de pagamento só está disponível em links de teste.");
  }
  const scope: Scope = { accountId: found.link.accountId, livemode: false };
  return deps.store.transaction(async (tx) => {
    await tx.lockScope(scope);
    const at = deps.clock.now().toISOString();
    const charge = await tx.transactions.get(scope, transactionId);
    if (!charge) throw notFound();
    if (charge.status === "PAID") return charge;
    return creditPaidCharge(tx, found.account, charge, at);
  });
}
