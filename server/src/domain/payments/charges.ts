import { buildBrCode } from "../../pix/brcode.js";
import { parseDocument } from "../../pix/documents.js";
import { brCodeMerchant } from "../accounts/index.js";
import { checkAmountCents } from "../core/amounts.js";
import type { Authentication, Credentials } from "../keys/index.js";
import { type StoreReads, type StoreTx, type TransactionFilter, UnknownCursorError } from "../ports/store.js";
import { upsertCustomerRecord } from "./customers.js";
import { requireDocument } from "../core/documents.js";
import { requireActiveForProduction } from "../identity/index.js";
import { type ScopedCaller, type DomainConfig, type DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { formatBRL } from "../core/money.js";
import { DomainError, fieldError, notFound, serviceUnavailableRetryAfterSeconds } from "../core/errors.js";
import { recordEvent } from "../webhooks/index.js";
import { once } from "../core/idempotency.js";
import { newId } from "../core/ids.js";
import { checkMetadata } from "../core/metadata.js";
import type {
  Account,
  PageRequest,
  PageResult,
  PaymentLinkRecord,
  Schemas,
  Scope,
  DueDateChargeRecord,
  TransactionRecord,
} from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { amountLimits } from "../core/policy.js";
import { effectiveStatus, presentTransaction } from "./presenters.js";
import { amountPaid } from "./due-date/pay.js";
import { approveByInitialPayment, cancelCycleCharge, recurrenceToday } from "./recurrences/rules.js";
import { bankDownRefusal, bankFor, pendAtBank, registerWithin, removeAtBankNow } from "./bank-charges.js";

/** The fee the account's plan charges on `amountCents`: fixed cents plus basis points, rounded. */
export function chargeFee(account: Account, amountCents: number): number {
  return account.plan.chargeFeeCents + Math.round((amountCents * account.plan.chargeFeeBps) / 10_000);
}

/** Test-mode charges with this description are created `FAILED`, as a bank's refusal leaves one. */
const sandboxFailingChargeDescription = "sandbox:falha";

export interface NewCharge {
  amountCents: number;
  description: string;
  customer: Schemas["ChargeCustomerInput"];
  expiresAt?: string | undefined;
  metadata?: Schemas["Metadata"] | undefined;
}

/**
 * Checks a charge request and returns what it needs, before any write: an amount out of bounds, a
 * bad document, a past `expiresAt` or a fee that eats the whole amount are refused here, so
 * nothing is half-created.
 */
function prepareCharge(account: Account, input: NewCharge, now: string) {
  checkAmountCents(input.amountCents, amountLimits.minChargeCents);
  checkMetadata(input.metadata);
  const doc = requireDocument(input.customer.document, input.customer.documentType);
  let expiresAt: string | undefined;
  if (input.expiresAt !== undefined) {
    expiresAt = new Date(input.expiresAt).toISOString();
    if (expiresAt <= now) throw fieldError("expiresAt", "deve ser um instante no futuro");
  }
  const feeCents = chargeFee(account, input.amountCents);
  if (feeCents >= input.amountCents) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O valor da cobrança deve ser maior que a tarifa do plano (${formatBRL(feeCents)}).`,
    );
  }
  return { doc, expiresAt, feeCents };
}

/**
 * Inserts a charge (and upserts its payer) inside `tx`. `scopeLocked`: whether the caller holds the
 * scope's lock; when it does not, the payer's upsert takes it if it must write. A production charge
 * needs a verified account (`403 ACCOUNT_NOT_ACTIVE`), whoever asks: the public API, a payment
 * link's checkout, a recurrence's immediate charge. With the platform's bank connected, a
 * production charge is inserted `PENDING` and queued for registration at the bank
 * (`pendAtBank`); the caller may wait for it a bounded time (`registerWithin`) after its commit.
 * `throughBank: false` keeps the static code: a journey 3 recurrence's immediate charge, whose
 * code carries the recurrence (Pix Automático through the bank is issue 35's part 2).
 */
export async function insertCharge(
  deps: DomainDeps,
  tx: StoreTx,
  scope: Scope,
  account: Account,
  input: NewCharge,
  now: string,
  link?: PaymentLinkRecord,
  options: { scopeLocked: boolean; throughBank?: boolean; dueDateCharge?: DueDateChargeRecord } = {
    scopeLocked: true,
  },
): Promise<TransactionRecord> {
  requireActiveForProduction({ scope, account });
  const { doc, expiresAt, feeCents } = prepareCharge(account, input, now);
  const { customer } = await upsertCustomerRecord(
    tx,
    scope,
    doc,
    {
      name: input.customer.name,
      email: input.customer.email,
      phone: input.customer.phone,
      address: input.customer.address,
    },
    now,
    options,
  );
  let expiry = expiresAt ?? addSeconds(now, deps.config.chargeExpirySeconds);
  if (link?.expiresAt && link.expiresAt < expiry) expiry = link.expiresAt;
  const id = newId("txn");
  const record: TransactionRecord = {
    id,
    ...scope,
    status: "WAITING_PAYMENT",
    amountCents: input.amountCents,
    feeCents,
    description: input.description,
    brCode: buildBrCode({
      pixKey: account.pixKey,
      ...brCodeMerchant(account),
      amountCents: input.amountCents,
      txid: id.replace("_", ""),
    }),
    customer: {
      id: customer.id,
      name: input.customer.name,
      email: input.customer.email,
      phone: input.customer.phone,
      documentType: doc.documentType,
      document: doc.document,
    },
    paymentLinkId: link?.id ?? null,
    dispute: null,
    refundedAmountCents: 0,
    recurrenceId: null,
    cycle: null,
    failureReason: null,
    ...(options.dueDateCharge ? { dueDateCharge: options.dueDateCharge } : {}),
    metadata: input.metadata ?? link?.metadata ?? {},
    expiresAt: expiry,
    paidAt: null,
    createdAt: now,
    updatedAt: now,
  };
  if (!scope.livemode && input.description === sandboxFailingChargeDescription) {
    // The sandbox's bank refusal: FAILED at once, with the event a bank's refusal sends.
    const failed: TransactionRecord = {
      ...record,
      status: "FAILED",
      brCode: "",
      failureReason: "Sandbox: cobrança recusada pelo banco (descrição sandbox:falha).",
    };
    await tx.transactions.insert(failed);
    await recordEvent(tx, scope, "transaction.failed", presentTransaction(failed, now), now);
    return failed;
  }
  const bank = options.throughBank === false ? null : await bankFor(deps, scope);
  // The bank known to be down (its breaker open): 503 at once; the caller's transaction, and so
  // the idempotency record, is rolled back.
  const downFor = bank?.downForSeconds?.() ?? null;
  if (downFor !== null) throw bankDownRefusal(downFor);
  const inserted = bank ? await pendAtBank(deps, tx, record, now) : record;
  await tx.transactions.insert(inserted);
  return inserted;
}

/**
 * Marks a charge paid and credits its net amount, pending for the account's release period, and
 * records `transaction.paid`. Called under `lockScope`, so concurrent payments credit once. A cycle
 * charge of a recurrence is paid only by its attempt (`byAttempt`); a journey 3 immediate charge
 * approves its recurrence as it is paid.
 */
export async function creditPaidCharge(
  tx: StoreTx,
  account: Account,
  charge: TransactionRecord,
  now: string,
  options: { config: DomainConfig; byAttempt?: boolean; paymentDate?: string | undefined },
): Promise<TransactionRecord> {
  const status = effectiveStatus(charge, now);
  if (status !== "WAITING_PAYMENT") {
    throw new DomainError("REQUEST_ERROR", `A cobrança não está aguardando pagamento: status atual ${status}.`);
  }
  if (charge.cycle && !options.byAttempt) {
    throw new DomainError(
      "REQUEST_ERROR",
      "A cobrança de um ciclo de recorrência é debitada pela sua tentativa agendada: liquide-a com settle-attempt.",
    );
  }
  if (options.paymentDate !== undefined && !charge.dueDateCharge) {
    throw fieldError("paymentDate", "só se usa com uma cobrança com vencimento");
  }
  const paid: TransactionRecord = {
    ...charge,
    ...(charge.dueDateCharge ? amountPaid(charge, charge.dueDateCharge, now, options.paymentDate) : {}),
    status: "PAID",
    paidAt: now,
    updatedAt: now,
  };
  await tx.transactions.update(paid);
  await tx.ledger.append({
    id: newId("led"),
    accountId: charge.accountId,
    livemode: charge.livemode,
    bucket: "available",
    amountCents: paid.amountCents - paid.feeCents,
    releaseAt: addSeconds(now, account.releasePeriodDays * 86_400),
    kind: "charge_paid",
    refId: charge.id,
    createdAt: now,
  });
  if (paid.paymentLinkId) {
    const link = await tx.paymentLinks.get(paid, paid.paymentLinkId);
    if (link) {
      const paymentsCount = link.paymentsCount + 1;
      const exhausted = link.maxPayments !== null && paymentsCount >= link.maxPayments;
      await tx.paymentLinks.update({
        ...link,
        paymentsCount,
        active: exhausted ? false : link.active,
        updatedAt: now,
      });
    }
  }
  await recordEvent(tx, paid, "transaction.paid", presentTransaction(paid, now), now);
  await approveByInitialPayment(tx, options.config, paid, now);
  return paid;
}

/** The filters of `GET /transactions`, as the client gave them. */
export interface ListFilter {
  status?: string | undefined;
  paymentLinkId?: string | undefined;
  recurrenceId?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  /** Only disputed charges (the dashboard's dispute list). */
  dispute?: TransactionFilter["dispute"];
  /** The dashboard's: only a customer's charges. */
  customerId?: string | undefined;
  /** The dashboard's search box: a charge's whole id, or its payer's whole CPF or CNPJ. */
  search?: string | undefined;
  /** The dashboard's: `DUE_DATE`, only charges with a due date. */
  kind?: "DUE_DATE" | undefined;
}

/** The store's filter: dates as ISO instants, and the instant that decides expiry. */
function storeFilter(filter: ListFilter, at: string): TransactionFilter {
  const iso = (v: string | undefined) => (v === undefined ? undefined : new Date(v).toISOString());
  return {
    status: filter.status,
    paymentLinkId: filter.paymentLinkId,
    recurrenceId: filter.recurrenceId,
    dispute: filter.dispute,
    customerId: filter.customerId,
    dueDateCharge: filter.kind === "DUE_DATE" ? true : undefined,
    createdFrom: iso(filter.createdFrom),
    createdTo: iso(filter.createdTo),
    now: at,
  };
}

/**
 * A page of the scope's charges matching `where` (from `resolvedFilter`); null matches none, but a
 * cursor still has to be a charge of the scope, as with any other filter.
 */
export async function chargesPage(
  read: StoreReads,
  scope: Scope,
  where: TransactionFilter | null,
  page: PageRequest,
): Promise<PageResult<TransactionRecord>> {
  if (where !== null) return read.transactions.list(scope, where, page);
  if (page.startingAfter !== undefined && !(await read.transactions.get(scope, page.startingAfter))) {
    throw new UnknownCursorError();
  }
  return { items: [], hasMore: false };
}

/**
 * `storeFilter` with the dashboard's `search` resolved: a `txn_…` text is the charge's id; a CPF or
 * CNPJ is the customer the mode keeps for it (one per document, and a charge's payer is always
 * that customer). Null when the text can match no charge: neither, or a document nobody paid with.
 */
export async function resolvedFilter(
  read: StoreReads,
  scope: Scope,
  filter: ListFilter,
  at: string,
): Promise<TransactionFilter | null> {
  const where = storeFilter(filter, at);
  const text = filter.search?.trim() ?? "";
  if (text === "") return where;
  if (text.startsWith("txn_")) return { ...where, id: text };
  const document = parseDocument(text);
  if (!document.ok) return null;
  const customer = await read.customers.getByDocument(scope, document.document);
  if (!customer || (filter.customerId !== undefined && filter.customerId !== customer.id)) return null;
  return { ...where, customerId: customer.id };
}

const presentPage = (result: PageResult<TransactionRecord>, at: string) => ({
  data: result.items.map((t) => presentTransaction(t, at)),
  hasMore: result.hasMore,
});

export function chargeUseCases(deps: DomainDeps, authentication: Authentication) {
  const now = () => deps.clock.now().toISOString();
  const list = async (scope: Scope, filter: ListFilter, page: PageRequest) => {
    const at = now();
    const where = await resolvedFilter(deps.store.read, scope, filter, at);
    const result = await pageOrInvalidCursor(() => chargesPage(deps.store.read, scope, where, page));
    return presentPage(result, at);
  };
  return {
    async create(actor: ScopedCaller, body: NewCharge, idempotencyKey?: string) {
      const at = now();
      prepareCharge(actor.account, body, at);
      // A new charge moves no money: the scope's lock serialises only what could race, one
      // idempotency key reaching the insert twice (taken when a key is given) and writes of a
      // payer (taken by the payer's upsert when one is needed). A returning payer with the same
      // data and no key takes no lock, so an account's charges are made in parallel.
      const scopeLocked = idempotencyKey !== undefined;
      let inserted: TransactionRecord | undefined;
      const outcome = await deps.store.transaction(async (tx) => {
        if (scopeLocked) await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createPixCharge", idempotencyKey, body, at, async () => {
          inserted = await insertCharge(deps, tx, actor.scope, actor.account, body, at, undefined, {
            scopeLocked,
          });
          return { status: 201, body: presentTransaction(inserted, at) };
        });
      });
      // A production charge through the bank: wait for its registration a bounded time (then it
      // is answered as it is, `PENDING` included, or withdrawn with a 503 when the bank is down);
      // a replay of one first answered `PENDING` answers the same charge as it is now.
      if (inserted?.status === "PENDING") {
        const finished = await registerWithin(deps, inserted, { operation: "createPixCharge", key: idempotencyKey });
        return { status: 201, body: presentTransaction(finished, now()), replayed: false as const };
      }
      if (outcome.replayed && outcome.body.status === "PENDING") {
        const current = await deps.store.read.transactions.get(actor.scope, outcome.body.id);
        if (current) return { status: 201, body: presentTransaction(current, now()), replayed: false as const };
        // Withdrawn meanwhile (the bank down): the first request's 503 is this one's too.
        throw bankDownRefusal(serviceUnavailableRetryAfterSeconds);
      }
      return outcome;
    },

    /** The list of a caller already admitted (the dashboard's user), with the public list's filters. */
    list: (actor: ScopedCaller, filter: ListFilter, page: PageRequest) => list(actor.scope, filter, page),

    /**
     * `list` for a caller not yet authenticated. A first page whose key this process has read
     * before is read in one statement that also confirms the key unchanged (`recall`,
     * `listWhileKeyUnchanged`); a page with items proves it. Otherwise (a new or changed key, an
     * empty first page, a later page) the key is read first, as for every other operation.
     */
    async listAsCaller(credentials: Credentials, filter: ListFilter, page: PageRequest) {
      const recalled = page.startingAfter === undefined ? authentication.recall(credentials) : null;
      if (recalled) {
        const at = now();
        const result = await deps.store.read.transactions.listWhileKeyUnchanged(
          recalled.key,
          recalled.actor.scope,
          storeFilter(filter, at),
          page.limit,
        );
        if (result.items.length > 0) {
          authentication.noteUse(recalled.actor);
          return presentPage(result, at);
        }
      }
      const actor = await authentication.authenticate(credentials);
      return list(actor.scope, filter, page);
    },

    /**
     * `get` for a caller not yet authenticated, as `listAsCaller`: a key this process has read
     * before is confirmed unchanged by the charge's own read (`getWhileKeyUnchanged`); a charge
     * found proves it. Otherwise (a new or changed key, no such charge) the key is read first.
     */
    async getAsCaller(credentials: Credentials, id: string) {
      const recalled = authentication.recall(credentials);
      if (recalled) {
        const record = await deps.store.read.transactions.getWhileKeyUnchanged(recalled.key, recalled.actor.scope, id);
        if (record) {
          authentication.noteUse(recalled.actor);
          return presentTransaction(record, now());
        }
      }
      const actor = await authentication.authenticate(credentials);
      const record = await deps.store.read.transactions.get(actor.scope, id);
      if (!record) throw notFound();
      return presentTransaction(record, now());
    },

    async cancel(actor: ScopedCaller, id: string, idempotencyKey?: string) {
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        const at = now();
        return once(tx, actor.scope, "cancelTransaction", idempotencyKey, { id }, at, async () => {
          const record = await tx.transactions.get(actor.scope, id);
          if (!record) throw notFound();
          const status = effectiveStatus(record, at);
          // A PENDING production charge too: its registration at the bank is stopped, or its cob
          // removed when it lands (`removeAtBankNow`).
          if (status !== "WAITING_PAYMENT" && status !== "PENDING") {
            throw new DomainError("REQUEST_ERROR", `A cobrança não pode ser cancelada: status atual ${status}.`);
          }
          if (record.cycle)
            return { status: 200, body: presentTransaction(await cancelCycleOnTime(tx, record, at), at) };
          const cancelled: TransactionRecord = { ...record, status: "CANCELLED", updatedAt: at };
          await tx.transactions.update(cancelled);
          await removeAtBankNow(tx, cancelled, at);
          return { status: 200, body: presentTransaction(cancelled, at) };
        });
      });
    },

    /**
     * Test mode only: pays a test charge as if the payer had. With an `idempotency-key`, a retry
     * of a pay that went through (say, its answer was lost) replays the 200 instead of answering
     * that the charge is no longer waiting for payment.
     */
    async simulatePayment(actor: ScopedCaller, id: string, idempotencyKey?: string, paymentDate?: string) {
      if (actor.scope.livemode)
        throw new DomainError("TEST_MODE_ONLY", "A simulação de pagamento só está disponível com chave de teste.");
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        const at = now();
        const request = paymentDate === undefined ? { id } : { id, paymentDate };
        return once(tx, actor.scope, "simulatePayment", idempotencyKey, request, at, async () => {
          const record = await tx.transactions.get(actor.scope, id);
          if (!record) throw notFound();
          const paid = await creditPaidCharge(tx, actor.account, record, at, { config: deps.config, paymentDate });
          return { status: 200, body: presentTransaction(paid, at) };
        });
      });
    },
  };
}

/**
 * The merchant cancels a cycle charge: only before the day of its first attempt (the Central Bank
 * refuses a cancellation on or after the first attempt's date). Records `recurring_charge.cancelled`.
 */
async function cancelCycleOnTime(tx: StoreTx, charge: TransactionRecord, at: string): Promise<TransactionRecord> {
  const recurrence = charge.recurrenceId ? await tx.recurrences.get(charge, charge.recurrenceId) : null;
  const first = charge.cycle?.attempts[0]?.settlementDate;
  if (!recurrence || first === undefined) throw new Error(`cycle charge ${charge.id} without its recurrence`);
  if (recurrenceToday(recurrence, at) >= first) {
    throw new DomainError(
      "REQUEST_ERROR",
      `A cobrança do ciclo só pode ser cancelada até o dia anterior à primeira tentativa (${first}).`,
    );
  }
  return cancelCycleCharge(tx, charge, at);
}
