import type { DomainDeps } from "../deps.js";
import { BankRefusedError, type PixBank } from "../ports/pix-bank.js";
import type { BankTaskRecord } from "../ports/received-pix-store.js";
import {
  applyRegistration,
  bankTask,
  cancelledRegistrationGraceSeconds,
  registerAtBank,
  removeAtBank,
  retryAt,
  runRecurrenceTask,
} from "../payments/index.js";
import { followRefundTask } from "./refunds-at-bank.js";

// The work owed to the bank, done by a job (server/src/jobs/bank-work.ts) in every process: a
// task is claimed for `claimSeconds` (another process skips it meanwhile), done, then deleted,
// or put off with a growing pause when the bank does not answer. What the create or a refund
// finished within its own wait has no task left by then.

/** How long a claimed task is held before another worker may take it. */
const claimSeconds = 60;

export function bankWorkUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();

  /**
   * `register`: a charge still `PENDING`. Past its expiry it is `FAILED` (and removed at the
   * bank, in case a lost answer registered it); otherwise registered now.
   */
  async function register(bank: PixBank, task: BankTaskRecord): Promise<boolean> {
    const charge = await deps.store.read.transactions.getById(task.subjectId);
    if (!charge || charge.status !== "PENDING") return true;
    const at = now();
    if (charge.expiresAt <= at) {
      await deps.store.transaction(async (tx) => {
        const failed = await applyRegistration(
          tx,
          charge.id,
          charge,
          { refused: "A cobrança expirou antes de o banco registrá-la." },
          at,
        );
        if (failed?.status === "FAILED") await tx.bankTasks.put(bankTask("remove", charge.id, charge, at, at));
      });
      return true;
    }
    return (await registerAtBank(deps, bank, charge)) !== null;
  }

  /**
   * `remove`: at the charge's expiry, or at once when cancelled, the cob is removed at the bank
   * (an expired cob still reads `ATIVA` there). A paid charge's cob is done already. A charge
   * withdrawn because the bank answered 5xx (it no longer exists here) is removed in case the
   * bank made its cob after all; a cob the bank does not know is done.
   */
  async function remove(bank: PixBank, task: BankTaskRecord): Promise<boolean> {
    const charge = await deps.store.read.transactions.getById(task.subjectId);
    if (!charge) {
      try {
        await removeAtBank(bank, task.subjectId, null);
      } catch (error) {
        if (!(error instanceof BankRefusedError && error.status === 404)) throw error;
      }
      return true;
    }
    if (charge.status === "PAID") return true;
    if (charge.brCode === "" && charge.status === "CANCELLED") {
      // Cancelled while PENDING: its cob may never have been made, or may land late.
      try {
        await removeAtBank(bank, charge.id, charge);
        return true;
      } catch (error) {
        if (!(error instanceof BankRefusedError && error.status === 404)) throw error;
        const waited = (Date.parse(now()) - Date.parse(charge.updatedAt)) / 1000;
        return waited >= cancelledRegistrationGraceSeconds;
      }
    }
    const at = now();
    if (charge.status === "WAITING_PAYMENT" && charge.expiresAt > at) {
      await deps.store.transaction((tx) => tx.bankTasks.put({ ...task, dueAt: charge.expiresAt }));
      return false;
    }
    await removeAtBank(bank, charge.id, charge);
    return true;
  }

  /** Does one task; a bank that does not answer puts it off (`retryAt`). */
  async function run(bank: PixBank, task: BankTaskRecord): Promise<void> {
    let done: boolean;
    let lastError: string | null = null;
    try {
      done =
        task.kind === "register"
          ? await register(bank, task)
          : task.kind === "remove"
            ? await remove(bank, task)
            : task.kind === "recurrence"
              ? await runRecurrenceTask(deps, bank, task)
              : await followRefundTask(deps, bank, task);
    } catch (error) {
      deps.logger.warn({ err: error, task: task.id }, "bank: task not done");
      done = false;
      lastError = error instanceof Error ? error.message.slice(0, 500) : "falha desconhecida";
    }
    await deps.store.transaction(async (tx) => {
      const current = await tx.bankTasks.get(task.id);
      if (!current) return;
      if (done) await tx.bankTasks.delete(task.id);
      else if (current.dueAt === task.dueAt) {
        // Still this claim's: put it off. (A task moved meanwhile, say to the charge's expiry, keeps its time.)
        await tx.bankTasks.put({
          ...current,
          attempts: current.attempts + 1,
          lastError,
          dueAt: retryAt(current, now(), deps.config.bankRetrySeconds),
        });
      }
    });
  }

  /** Claimed tasks not started, due again now (each one still this claim's: not moved meanwhile). */
  async function handBack(tasks: BankTaskRecord[]): Promise<void> {
    const at = now();
    await deps.store.transaction(async (tx) => {
      for (const task of tasks) {
        const current = await tx.bankTasks.get(task.id);
        if (current && current.dueAt === task.dueAt) await tx.bankTasks.put({ ...current, dueAt: at });
      }
    });
  }

  return {
    /**
     * Claims up to `limit` due tasks and does them one after another; answers how many it claimed.
     * Nothing without a bank. A task is started only while its claim has at least half its time
     * left: past that (a slow bank, each call up to its bounded wait), the tasks not started are
     * handed back, due now, for the next pass here or another process's, never started so late
     * that they would still run when the claim runs out and another process may claim them too.
     */
    async runDue(limit = 50): Promise<number> {
      const bank = await deps.bank?.current();
      if (!bank) return 0;
      const at = now();
      const lockUntil = new Date(Date.parse(at) + claimSeconds * 1000).toISOString();
      const startBy = Date.parse(at) + (claimSeconds * 1000) / 2;
      const tasks = await deps.store.transaction((tx) => tx.bankTasks.claimDue(at, lockUntil, limit));
      for (const [index, task] of tasks.entries()) {
        if (Date.parse(now()) > startBy) {
          await handBack(tasks.slice(index));
          break;
        }
        await run(bank, task);
      }
      return tasks.length;
    },
  };
}
