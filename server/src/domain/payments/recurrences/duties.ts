import type { StoreTx } from "../../ports/store.js";
import type { DomainDeps } from "../../deps.js";
import { DomainError } from "../../core/errors.js";
import type { RecurrenceRecord, TransactionRecord } from "../../core/model.js";
import { recurrenceLimits } from "../../core/policy.js";
import { addDays, firstCycleFrom } from "./calendar.js";
import { expireRecurrence, recurrenceToday } from "./rules.js";
import { insertCycleCharge } from "./cycle-charges.js";

// What time does to recurrences (Pix Automático), run by the server process in the background:
// a CREATED recurrence past `expiresAt` is written EXPIRED (`recurrence.expired`), and an APPROVED
// one with automatic charges sends each cycle's charge once its window opens (ten days before the
// cycle; `recurring_charge.created`). Both modes, on either store; several processes may run it at
// once: each recurrence is reloaded under its scope's lock and nothing is done twice.

/** How many recurrences one pass reads at a time. */
const batch = 100;

/** The next cycle a recurrence can still charge from `today`, and whether it has a charge already. */
function nextCycle(r: RecurrenceRecord, charges: TransactionRecord[], today: string): string | null {
  const charged = new Set(charges.flatMap((c) => (c.cycle ? [c.cycle.dueDate] : [])));
  let next = firstCycleFrom(r.firstDate, r.periodicity, addDays(today, recurrenceLimits.minDaysBeforeDue));
  while (charged.has(next.date)) next = firstCycleFrom(r.firstDate, r.periodicity, addDays(next.date, 1));
  if (r.lastDate !== null && next.date > r.lastDate) return null;
  return addDays(next.date, -recurrenceLimits.maxDaysBeforeDue) <= today ? next.date : null;
}

export function recurrenceDutyUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();

  /**
   * Runs `work` on the recurrence under its scope's lock, read again there. A refusal of the domain
   * (a rule the recurrence no longer meets) is logged and skipped, so one recurrence never holds
   * the others up; a failure of the store ends the pass (tried again on the next tick).
   */
  const locked = async (id: string, work: (tx: StoreTx, r: RecurrenceRecord, at: string) => Promise<boolean>) => {
    try {
      return await deps.store.transaction(async (tx) => {
        const found = await tx.recurrences.getById(id);
        if (!found) return false;
        await tx.lockScope(found);
        const r = await tx.recurrences.getById(id);
        return r ? work(tx, r, now()) : false;
      });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === "SERVICE_UNAVAILABLE") throw error;
      deps.logger.warn({ recurrence: id, code: error.code, reason: error.message }, "recurrence duty skipped");
      return false;
    }
  };

  return {
    /** Writes EXPIRED on every CREATED recurrence past `expiresAt` (keeping that instant). Answers how many. */
    async expireDue(): Promise<number> {
      let done = 0;
      for (;;) {
        const due = await deps.store.read.recurrences.listExpiring(now(), batch);
        let changed = 0;
        for (const r of due) {
          const expired = await locked(r.id, async (tx, fresh, at) => {
            if (fresh.status !== "CREATED" || fresh.expiresAt > at) return false;
            await expireRecurrence(tx, deps.config, fresh, at, { keepExpiresAt: true });
            return true;
          });
          if (expired) changed++;
        }
        done += changed;
        if (due.length < batch || changed === 0) return done;
      }
    },

    /** Sends the charge of every automatic recurrence whose next cycle's window is open. Answers how many. */
    async sendAutomaticCharges(): Promise<number> {
      let sent = 0;
      let after: string | undefined;
      for (;;) {
        const page = await deps.store.read.recurrences.listAutomatic(batch, after);
        for (const r of page) {
          const charged = await locked(r.id, async (tx, fresh, at) => {
            if (fresh.status !== "APPROVED" || !fresh.automaticCharges) return false;
            const dueDate = nextCycle(
              fresh,
              await tx.transactions.listByRecurrence(fresh, fresh.id),
              recurrenceToday(fresh, at),
            );
            if (dueDate === null) return false;
            const account = await tx.accounts.get(fresh.accountId);
            if (!account) return false;
            await insertCycleCharge(deps, tx, account, fresh, { dueDate }, at);
            return true;
          });
          if (charged) sent++;
        }
        if (page.length < batch) return sent;
        after = page[page.length - 1]?.id;
      }
    },
  };
}
