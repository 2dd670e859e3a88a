import type { ScopedCaller, DomainDeps } from "../../deps.js";
import { DomainError } from "../../core/errors.js";
import { once } from "../../core/idempotency.js";
import type { DueDateChargeRecord, Schemas, TransactionRecord } from "../../core/model.js";
import { formatBRL } from "../../core/money.js";
import { brasiliaDate } from "../../core/time.js";
import { endOfBrasiliaDay } from "../recurrences/calendar.js";
import { chargeFee, insertCharge } from "../charges.js";
import { presentTransaction } from "../presenters.js";
import { amountDue } from "./amount-due.js";
import { nextBusinessDay } from "./calendar.js";
import { type DueDateTerms, lastPayableDate } from "./terms.js";
import { checkDueDateTerms } from "./validation.js";

// Creating a Pix charge with a due date (issue 38; records 0052 and 0053): the terms checked
// against today (Brasília, by the service's clock), then a charge like any other, expiring at the
// end of its last payable day, with its terms and the plan's fee kept. Test mode only for now:
// production through the bank (`PUT /cobv/{txid}`) is not built yet.

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
      if (actor.scope.livemode) {
        throw new DomainError(
          "TEST_MODE_ONLY",
          "Cobranças com vencimento ainda só estão disponíveis com chave de teste.",
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
      return deps.store.transaction(async (tx) => {
        if (scopeLocked) await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createDueDateCharge", idempotencyKey, body, at, async () => {
          const input = {
            amountCents: terms.amountCents,
            description: body.description,
            customer: body.customer,
            expiresAt,
            metadata: body.metadata,
          };
          const inserted: TransactionRecord = await insertCharge(
            deps,
            tx,
            actor.scope,
            actor.account,
            input,
            at,
            undefined,
            {
              scopeLocked,
              throughBank: false,
              dueDateCharge,
            },
          );
          return { status: 201, body: presentTransaction(inserted, at) };
        });
      });
    },
  };
}
