import { operatesIn } from "../accounts/index.js";
import { creditPaidCharge, insertCharge } from "./charges.js";
import { registerWithin } from "./bank-charges.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, type FieldError, notFound } from "../core/errors.js";
import { once } from "../core/idempotency.js";
import type { Account, PaymentLinkRecord, Schemas, Scope, TransactionRecord } from "../core/model.js";
import { effectiveStatus } from "./presenters.js";
import { findRecurrencePage } from "./recurrences/page.js";
import { findDueDateChargePage, simulateDueDatePayment } from "./due-date/page.js";

// The hosted checkout: a payer opens a payment link's `url`, fills in their
// data, pays the Pix it generates and sees a receipt. The pages find a link by its id alone.

/**
 * Whether a link's checkout takes new payers, and if not, why. `accountNotActive`: a production
 * link of an account that is not verified (never, or no longer): it shows no code to pay.
 */
export type CheckoutState = "open" | "unavailable" | "exhausted" | "expired" | "accountNotActive";

/** Whether the link's charges may be paid: production takes money only for a verified account. */
const payableFor = (link: PaymentLinkRecord, account: Account) => operatesIn(account, link.livemode);

function checkoutState(link: PaymentLinkRecord, account: Account, now: string): CheckoutState {
  if (link.maxPayments !== null && link.paymentsCount >= link.maxPayments) return "exhausted";
  if (!link.active) return "unavailable";
  if (link.expiresAt !== null && link.expiresAt <= now) return "expired";
  if (!payableFor(link, account)) return "accountNotActive";
  return "open";
}

/** A new payer arrived at a link that no longer takes them: deactivated, exhausted or expired. */
export class CheckoutClosedError extends Error {
  constructor(readonly state: Exclude<CheckoutState, "open" | "accountNotActive">) {
    super(`payment link checkout is ${state}`);
    this.name = "CheckoutClosedError";
  }
}

/** The payer of a checkout, checked and normalised: the customer of the charge it creates. */
export type CheckoutPayer = Schemas["ChargeCustomerInput"];

/**
 * What the checkout read from the payer's form, once the link is known to take payers: the payer,
 * or one error per field. The reading (the spec's own schema and the document's check digits)
 * belongs to the checkout's entry point; the use case calls it inside the submission's
 * idempotency record, so a form already submitted replays its charge whatever it holds now.
 */
export type PayerReading = { ok: true; payer: CheckoutPayer } | { ok: false; errors: FieldError[] };

/** Reads the payer for a link that asks (`askAddress`) or not for the address. */
export type ReadPayer = (askAddress: boolean) => PayerReading;

/** A link as its checkout sees it: the link, the receiving account, and whether it takes payers. */
export interface CheckoutView {
  link: PaymentLinkRecord;
  account: Account;
  /** Who is charging, as the payer sees it. */
  merchant: CheckoutMerchant;
  state: CheckoutState;
  /**
   * Whether the link's charges may be paid: false for a production link of an account that is not
   * verified, whose pages then show no code to pay, not even of a charge generated before.
   */
  payable: boolean;
}

/** Who is charging: the account's name and, when the account has one, its CNPJ or CPF (digits). */
interface CheckoutMerchant {
  name: string;
  document: string | null;
}

const merchantOf = (account: Account): CheckoutMerchant => ({ name: account.name, document: account.document });

/** The checkout of a link, by the link's id alone; null when there is no such link. */
async function findCheckout(deps: DomainDeps, linkId: string): Promise<CheckoutView | null> {
  const link = await deps.store.read.paymentLinks.getById(linkId);
  if (!link) return null;
  const account = await deps.store.read.accounts.get(link.accountId);
  if (!account) return null;
  const state = checkoutState(link, account, deps.clock.now().toISOString());
  return { link, account, merchant: merchantOf(account), state, payable: payableFor(link, account) };
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
 * `403 ACCOUNT_NOT_ACTIVE` a production link of an account that is not verified, with
 * `VALIDATION_ERROR` (one item per field) invalid payer data (as `readPayer` reads it), and with
 * `NOT_FOUND` an unknown link.
 */
async function startCheckout(
  deps: DomainDeps,
  linkId: string,
  readPayer: ReadPayer,
  submissionToken: string,
): Promise<{ transaction: TransactionRecord; replayed: boolean }> {
  const found = await deps.store.read.paymentLinks.getById(linkId);
  if (!found) throw notFound();
  if (!SUBMISSION_TOKEN.test(submissionToken)) {
    throw new DomainError("REQUEST_ERROR", "Formulário inválido: recarregue a página e tente novamente.");
  }
  const scope: Scope = { accountId: found.accountId, livemode: found.livemode };
  const at = deps.clock.now().toISOString();
  const started = await deps.store.transaction(async (tx) => {
    await tx.lockScope(scope);
    const outcome = await once(tx, scope, "checkout", submissionToken, { paymentLinkId: linkId }, at, async () => {
      const link = await tx.paymentLinks.get(scope, linkId);
      if (!link) throw notFound();
      const account = await tx.accounts.get(link.accountId);
      if (!account) throw notFound();
      const state = checkoutState(link, account, at);
      if (state === "accountNotActive") throw new DomainError("ACCOUNT_NOT_ACTIVE");
      if (state !== "open") throw new CheckoutClosedError(state);
      const read = readPayer(link.askAddress);
      if (!read.ok) throw new DomainError("VALIDATION_ERROR", "Dados inválidos.", { errors: read.errors });
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
  // A production charge through the bank: the payer waits for its code a bounded time, like the API.
  if (started.transaction.status !== "PENDING") return started;
  return {
    ...started,
    transaction: await registerWithin(deps, started.transaction, { operation: "checkout", key: submissionToken }),
  };
}

/** A charge as its checkout page sees it. */
export interface CheckoutCharge extends CheckoutView {
  transaction: TransactionRecord;
  /** The status the payer sees: an unpaid Pix past `expiresAt` is `EXPIRED`. */
  status: Schemas["TransactionStatus"];
}

/**
 * A charge of the link, by ids alone; null unless the transaction exists and was generated by this
 * link. The link's state does not matter: a charge generated earlier stays payable.
 */
async function findCheckoutCharge(
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
async function simulateCheckoutPayment(
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
    return creditPaidCharge(tx, found.account, charge, at, { config: deps.config });
  });
}

/**
 * The hosted checkout's use cases: what its pages may do, and the time they show (a countdown is
 * the charge's `expiresAt` minus the domain's clock).
 */
export function checkoutUseCases(deps: DomainDeps) {
  return {
    /** The checkout of a link by its id alone; null when there is no such link. */
    find: (linkId: string) => findCheckout(deps, linkId),
    /** A payer submits the form: the link's charge, once per submission token. */
    start: (linkId: string, readPayer: ReadPayer, submissionToken: string) =>
      startCheckout(deps, linkId, readPayer, submissionToken),
    /** A charge of the link by ids alone; null unless the link generated it. */
    findCharge: (linkId: string, transactionId: string) => findCheckoutCharge(deps, linkId, transactionId),
    /** Test links only: "Simular pagamento". */
    simulatePayment: (linkId: string, transactionId: string) => simulateCheckoutPayment(deps, linkId, transactionId),
    /** A recurrence's hosted page (Pix Automático) by its id alone; null when there is none. */
    findRecurrence: (recurrenceId: string) => findRecurrencePage(deps, recurrenceId),
    /** A charge with a due date's hosted page by its id alone; null when there is none. */
    findDueDateCharge: (transactionId: string) => findDueDateChargePage(deps, transactionId),
    /** Test charges only: "Simular pagamento" on a date, from a charge with a due date's page. */
    simulateDueDatePayment: (transactionId: string, paymentDate: string | undefined) =>
      simulateDueDatePayment(deps, transactionId, paymentDate),
    /** Seconds until `iso` by the domain's clock (negative once past). */
    secondsUntil: (iso: string) => (new Date(iso).getTime() - deps.clock.now().getTime()) / 1000,
  };
}

export type CheckoutUseCases = ReturnType<typeof checkoutUseCases>;
