import { buildRecurrenceBrCode, withRecurrence } from "../../../pix/recurrence-brcode.js";
import { chargeFee, insertCharge } from "../charges.js";
import { upsertCustomerRecord } from "../customers.js";
import { requireDocument } from "../../core/documents.js";
import { auditChange, requireActiveForProduction } from "../../identity/index.js";
import { acquirerFor, type DomainDeps, type ScopedCaller } from "../../deps.js";
import { addSeconds } from "../../core/time.js";
import { formatBRL } from "../../core/money.js";
import { DomainError, fieldError, notFound } from "../../core/errors.js";
import { recordEvent } from "../../webhooks/index.js";
import { once } from "../../core/idempotency.js";
import { newId } from "../../core/ids.js";
import { brCodeMerchant } from "../../accounts/index.js";
import { checkMetadata } from "../../core/metadata.js";
import type { Account, PageRequest, RecurrenceRecord, Schemas, TransactionRecord } from "../../core/model.js";
import { pageOrInvalidCursor } from "../../core/pagination.js";
import { presentTransaction } from "../presenters.js";
import { brasiliaDate } from "./calendar.js";
import { cancelRecurrence, effectiveRecurrenceStatus, presentRecurrence, recurrenceLocation } from "./rules.js";
import { insertCycleCharge, type NewCycleCharge } from "./cycle-charges.js";
import { afterWait, owedToBank, recurrenceBankFor, syncWithin } from "./at-bank.js";
import { bankTaskId } from "../bank-charges.js";

// The merchant's side of recurrences (Pix Automático): create, read, list, cancel, and send each
// cycle's charge. The payer's side is played by the sandbox (test mode) or the settlement simulator.

type CreateRecurrence = Schemas["CreateRecurrenceRequest"];

/**
 * Checks a new recurrence before any write: every rule a field carries alone is the schema's; these
 * are the ones between fields and against today. Answers the payer's document and the expiry.
 */
function prepareRecurrence(account: Account, body: CreateRecurrence, now: string) {
  checkMetadata(body.metadata);
  const doc = requireDocument(body.payer.document, body.payer.documentType);
  const today = brasiliaDate(new Date(now));
  if (body.firstDate < today) throw fieldError("firstDate", `não pode ser anterior a hoje (${today})`);
  if (body.lastDate !== undefined && body.lastDate < body.firstDate) {
    throw fieldError("lastDate", "não pode ser anterior a firstDate");
  }
  if (body.amountCents !== undefined && body.minimumAmountCents !== undefined) {
    throw fieldError("minimumAmountCents", "não se usa com amountCents (valor fixo)");
  }
  if (body.automaticCharges === true && body.amountCents === undefined) {
    throw fieldError("automaticCharges", "exige amountCents (só recorrências de valor fixo têm cobranças automáticas)");
  }
  if (body.journey === "JOURNEY_3" && body.initialPayment === undefined) {
    throw fieldError("initialPayment", "é obrigatório na jornada JOURNEY_3");
  }
  if (body.journey === "JOURNEY_2" && body.initialPayment !== undefined) {
    throw fieldError("initialPayment", "só se usa na jornada JOURNEY_3");
  }
  let expiresAt: string | undefined;
  if (body.expiresAt !== undefined) {
    expiresAt = new Date(body.expiresAt).toISOString();
    if (expiresAt <= now) throw fieldError("expiresAt", "deve ser um instante no futuro");
  }
  for (const amount of [body.amountCents, body.initialPayment?.amountCents]) {
    if (amount !== undefined && chargeFee(account, amount) >= amount) {
      throw new DomainError(
        "REQUEST_ERROR",
        `O valor da cobrança deve ser maior que a tarifa do plano (${formatBRL(chargeFee(account, amount))}).`,
      );
    }
  }
  return { doc, expiresAt };
}

export function recurrenceUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  const present = (r: RecurrenceRecord, at: string) => presentRecurrence(r, deps.config, at);

  /**
   * A production recurrence at the bank, after its create or cancellation committed: the work at
   * the bank is done now for at most the bounded wait, and the recurrence answered as it then is
   * (a replay too: its code may have come since).
   */
  async function afterBank<T extends { body: Schemas["Recurrence"] }>(outcome: T): Promise<T> {
    if (!outcome.body.livemode || !deps.bank) return outcome;
    const r = await deps.store.read.recurrences.getById(outcome.body.id);
    if (!r || !(await deps.store.read.bankTasks.get(bankTaskId("recurrence", r.id)))) return outcome;
    await syncWithin(deps, { id: r.id, scope: r });
    const fresh = await deps.store.read.recurrences.get(r, r.id);
    return fresh ? { ...outcome, body: present(fresh, now()) } : outcome;
  }

  return {
    /**
     * Creates a recurrence CREATED with its QR code (field 80 with the recurrence's location);
     * journey 3 also creates the immediate charge, whose code carries the recurrence too. Production
     * only for a verified account (`403 ACCOUNT_NOT_ACTIVE`): it lets the account debit the payer.
     */
    async create(actor: ScopedCaller, body: CreateRecurrence, idempotencyKey?: string) {
      requireActiveForProduction(actor);
      const at = now();
      const { doc, expiresAt: asked } = prepareRecurrence(actor.account, body, at);
      const expiresAt = asked ?? addSeconds(at, deps.config.chargeExpirySeconds);
      const outcome = await deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createRecurrence", idempotencyKey, body, at, async () => {
          const id = newId("rec");
          const location = recurrenceLocation(deps.config, id);
          // Production with the platform's bank: the bank makes the location and the QR code
          // (at-bank.ts); until it answers the recurrence has no code, as a PENDING charge.
          const atBank = await recurrenceBankFor(deps, actor.scope);
          let brCode: string;
          let payer: Schemas["TransactionCustomer"];
          let initialTransactionId: string | null = null;
          let initialCharge: TransactionRecord | null = null;
          if (body.initialPayment) {
            const charge = await insertCharge(
              deps,
              tx,
              actor.scope,
              actor.account,
              {
                amountCents: body.initialPayment.amountCents,
                description: body.initialPayment.description ?? body.description,
                customer: body.payer,
                expiresAt,
                metadata: body.metadata,
              },
              at,
              undefined,
              { scopeLocked: true, throughBank: atBank !== null },
            );
            brCode = atBank ? "" : withRecurrence(charge.brCode, location);
            payer = charge.customer;
            initialCharge = { ...charge, recurrenceId: id, brCode };
            initialTransactionId = charge.id;
          } else {
            const { customer } = await upsertCustomerRecord(
              tx,
              actor.scope,
              doc,
              { name: body.payer.name, email: body.payer.email, phone: body.payer.phone, address: body.payer.address },
              at,
              { scopeLocked: true },
            );
            brCode = atBank ? "" : buildRecurrenceBrCode({ ...brCodeMerchant(actor.account), location });
            payer = {
              id: customer.id,
              name: body.payer.name,
              email: body.payer.email,
              phone: body.payer.phone,
              documentType: doc.documentType,
              document: doc.document,
            };
          }
          const recurrence: RecurrenceRecord = {
            id,
            ...actor.scope,
            status: "CREATED",
            journey: body.journey,
            payer,
            contractReference: body.contractReference,
            description: body.description,
            periodicity: body.periodicity,
            firstDate: body.firstDate,
            lastDate: body.lastDate ?? null,
            amountCents: body.amountCents ?? null,
            minimumAmountCents: body.minimumAmountCents ?? null,
            payerMaximumAmountCents: null,
            retryPolicy: body.retryPolicy ?? "NO_RETRY",
            automaticCharges: body.automaticCharges ?? false,
            initialTransactionId,
            brCode,
            metadata: body.metadata ?? {},
            expiresAt,
            approvedAt: null,
            rejection: null,
            cancellation: null,
            history: [{ status: "CREATED", at }],
            simulatedDate: null,
            createdAt: at,
            updatedAt: at,
          };
          await tx.recurrences.insert(recurrence);
          // The charge names its recurrence once the recurrence exists (each refers to the other).
          if (initialCharge) await tx.transactions.update(initialCharge);
          if (atBank) await owedToBank(tx, id, actor.scope, afterWait(deps, at), at);
          await auditChange(tx, actor, {
            action: "recurrence.created",
            target: { type: "recurrence", id },
            changes: {
              description: { from: null, to: recurrence.description },
              amountCents: { from: null, to: recurrence.amountCents },
            },
            at,
          });
          await recordEvent(tx, actor.scope, "recurrence.created", present(recurrence, at), at);
          await acquirerFor(deps, actor.scope.livemode).registerRecurrence(recurrence);
          return { status: 201, body: present(recurrence, at) };
        });
      });
      return afterBank(outcome);
    },

    async get(actor: ScopedCaller, id: string) {
      const r = await deps.store.read.recurrences.get(actor.scope, id);
      if (!r) throw notFound();
      return present(r, now());
    },

    async list(
      actor: ScopedCaller,
      filter: {
        status?: Schemas["RecurrenceStatus"] | undefined;
        customerId?: string | undefined;
        createdFrom?: string | undefined;
        createdTo?: string | undefined;
      },
      page: PageRequest,
    ) {
      const at = now();
      const iso = (v: string | undefined) => (v === undefined ? undefined : new Date(v).toISOString());
      const result = await pageOrInvalidCursor(() =>
        deps.store.read.recurrences.list(
          actor.scope,
          {
            status: filter.status,
            customerId: filter.customerId,
            createdFrom: iso(filter.createdFrom),
            createdTo: iso(filter.createdTo),
            now: at,
          },
          page,
        ),
      );
      return { data: result.items.map((r) => present(r, at)), hasMore: result.hasMore };
    },

    /**
     * The merchant cancels it (SLCR); its charges still waiting are cancelled with it. At the bank
     * (at-bank.ts) the cancellation reaches it at once (`PATCH /rec`), or through the task.
     */
    async cancel(actor: ScopedCaller, id: string, idempotencyKey?: string) {
      const at = now();
      const outcome = await deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "cancelRecurrence", idempotencyKey, { id }, at, async () => {
          const r = await tx.recurrences.get(actor.scope, id);
          if (!r) throw notFound();
          const cancellation = {
            requestedBy: "MERCHANT" as const,
            code: "SLCR" as const,
            reason: "Cancelada pelo recebedor.",
          };
          const cancelled = await cancelRecurrence(tx, deps.config, r, cancellation, at);
          await auditChange(tx, actor, {
            action: "recurrence.cancelled",
            target: { type: "recurrence", id: r.id },
            changes: { status: { from: effectiveRecurrenceStatus(r, at), to: cancelled.status } },
            at,
          });
          if (r.livemode && (await recurrenceBankFor(deps, r))) await owedToBank(tx, r.id, r, at, at);
          return { status: 200, body: present(cancelled, at) };
        });
      });
      return afterBank(outcome);
    },

    /** Sends the charge of one cycle (the Central Bank's rules in `insertCycleCharge`). */
    async createCharge(actor: ScopedCaller, id: string, body: NewCycleCharge, idempotencyKey?: string) {
      const at = now();
      const outcome = await deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createRecurringCharge", idempotencyKey, { id, ...body }, at, async () => {
          const r = await tx.recurrences.get(actor.scope, id);
          if (!r) throw notFound();
          const charge = await insertCycleCharge(deps, tx, actor.account, r, body, at);
          return { status: 201, body: presentTransaction(charge, at) };
        });
      });
      // At the bank: the cobr is sent now, for at most the bounded wait (its task finishes it).
      if (outcome.replayed || !outcome.body.livemode || !deps.bank) return outcome;
      if (!(await deps.store.read.bankTasks.get(bankTaskId("recurrence", outcome.body.id)))) return outcome;
      await syncWithin(deps, { id: outcome.body.id, scope: actor.scope });
      const sent = await deps.store.read.transactions.get(actor.scope, outcome.body.id);
      return sent ? { ...outcome, body: presentTransaction(sent, now()) } : outcome;
    },
  };
}
