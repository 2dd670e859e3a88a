import type { ScopedCaller, DomainDeps } from "../../deps.js";
import { DomainError } from "../../core/errors.js";
import { once } from "../../core/idempotency.js";
import type { DueDateChargeRecord, Schemas, TransactionRecord } from "../../core/model.js";
import { formatBRL } from "../../core/money.js";
import { serviceUnavailableRetryAfterSeconds } from "../../core/errors.js";
import { brasiliaDate } from "../../core/time.js";
import { bankDownRefusal, bankFor, registerWithin } from "../bank-charges.js";
import { endOfBrasiliaDay } from "../recurrences/calendar.js";
import { chargeFee, insertCharge } from "../charges.js";
import { presentTransaction } from "../presenters.js";
import { amountDue } from "./amount-due.js";
import { nextBusinessDay } from "./calendar.js";
import { type DueDateTerms, lastPayableDate } from "./terms.js";
import { checkDueDateTerms } from "./validation.js";

// Creating a Pix charge with a due date (issue 38; records 0052 and 0053): the terms checked
// against today (Brasília, by the service's clock), then a charge like any other, expiring at the
// end of its last payable day, with its terms and the plan's fee kept. In production it goes
// through the platform's bank as an immediate charge does (`PUT /cobv/{txid}`, record 0053's
// "Production"): inserted PENDING, registered within the bounded wait, 503 when the bank is down.
// Without a bank connection (or an adapter without cobv) a production key is still refused: the
// static code and the settlement simulator cannot carry the amount of the payer's date.

type NewDueDateCharge = Schemas["CreateDueDateChargeRequest"];

/** The least a payer can owe: the amount due today, or on the last day of each discount date still open. */
export function smallestAmountDue(terms: DueDateTerms, today: string): number {
  const dates = [today];
  if (terms.discount && "dates" in terms.discount) {
    for (const { date } of terms.discount.dates) if (nextBusinessDay(date) >= today) dates.push(nextBusinessDay(date));
  }
  return Math.min(...dates.map((date) => amountDue(terms, date).finalCents));
}

export function dueDateChargeUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  return {
    async create(actor: ScopedCaller, body: NewDueDateCharge, idempotencyKey?: string) {
      if (actor.scope.livemode && !(await bankFor(deps, actor.scope).catch(() => null))?.dueDateCharges) {
        throw new DomainError(
          "TEST_MODE_ONLY",
          "Cobranças com vencimento em produção precisam da conexão da plataforma com o banco; sem ela, só com chave de teste.",
        );
      }
      const at = now();
      const today = brasiliaDate(at);
      const terms = checkDueDateTerms(body, today);
      const fee = { fixedCents: actor.account.plan.chargeFeeCents, bps: actor.account.plan.chargeFeeBps };
      const smallest = smallestAmountDue(terms, today);
      const smallestFee = chargeFee(actor.account, smallest);
      if (smallestFee >= smallest) {
        throw new DomainError(
          "REQUEST_ERROR",
          `O menor valor devido (${formatBRL(smallest)}) deve ser maior que a tarifa do plano (${formatBRL(smallestFee)}).`,
        );
      }
      const dueDateCharge: DueDateChargeRecord = { terms, fee, paid: null };
      const expiresAt = endOfBrasiliaDay(lastPayableDate(terms.dueDate, terms.daysPayableAfterDue));
      const scopeLocked = idempotencyKey !== undefined;
      let inserted: TransactionRecord | undefined;
      const outcome = await deps.store.transaction(async (tx) => {
        if (scopeLocked) await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createDueDateCharge", idempotencyKey, body, at, async () => {
          const input = {
            amountCents: terms.amountCents,
            description: body.description,
            customer: body.customer,
            expiresAt,
            metadata: body.metadata,
          };
          inserted = await insertCharge(deps, tx, actor.scope, actor.account, input, at, undefined, {
            scopeLocked,
            dueDateCharge,
          });
          return { status: 201, body: presentTransaction(inserted, at) };
        });
      });
      // Production: registered at the bank within the bounded wait, as `createPixCharge` does.
      if (inserted?.status === "PENDING") {
        const created = { operation: "createDueDateCharge", key: idempotencyKey };
        const finished = await registerWithin(deps, inserted, created);
        return { status: 201, body: presentTransaction(finished, now()), replayed: false as const };
      }
      if (outcome.replayed && outcome.body.status === "PENDING") {
        const current = await deps.store.read.transactions.get(actor.scope, outcome.body.id);
        if (current) return { status: 201, body: presentTransaction(current, now()), replayed: false as const };
        throw bankDownRefusal(serviceUnavailableRetryAfterSeconds);
      }
      return outcome;
    },
  };
}
