import type { components } from "../../../../generated/admin-api.js";
import type { DomainDeps } from "../deps.js";
import type { WithdrawalPayouts } from "../balance/index.js";
import { DomainError } from "../core/errors.js";
import { BankRefusedError, BankUnavailableError, type PixBank, type ReceivedPix } from "../ports/pix-bank.js";
import { recordBankHealth, noBankConnection } from "./connection.js";
import { bankReceiptUseCases, type ReceiptOutcome } from "./received.js";
import { keepReceivedPage } from "./received-page.js";
import { reconcileRecurrencesAtBank } from "../payments/index.js";

// The reconciler (issue 35): callbacks get lost, so the Pix the bank received over a window
// (`GET /pix?inicio&fim`, paged) are kept as a callback would keep them. Windows overlap from one
// run to the next, and two processes may run it at once: the end-to-end id's row decides, so
// nothing is credited twice.

/** What one reconciliation saw. */
export interface Reconciliation {
  from: string;
  to: string;
  pages: number;
  counts: Record<ReceiptOutcome, number>;
}

type Schemas = components["schemas"];

/** The longest window a run reads: a week, as PIX_BANK_RECONCILE_WINDOW_SECONDS at most. */
const maxWindowSeconds = 604_800;

/** `Retry-After` of a run the bank did not answer: long enough for a bank's blip to pass. */
const bankDownRetryAfterSeconds = 30;

/** The window an operator's request names, checked against the service's clock. */
function windowOf(request: Schemas["BankReconciliationRequest"], now: Date, defaultSeconds: number) {
  const invalid = (path: string, message: string) =>
    new DomainError("VALIDATION_ERROR", undefined, { errors: [{ path, message }] });
  if (request.from !== undefined && request.lastSeconds !== undefined) {
    throw invalid("lastSeconds", "informe from ou lastSeconds, não ambos");
  }
  const to = request.to === undefined ? now : new Date(request.to);
  if (to.getTime() > now.getTime()) throw invalid("to", "o fim da janela não pode estar no futuro");
  const from =
    request.from === undefined
      ? new Date(to.getTime() - (request.lastSeconds ?? defaultSeconds) * 1000)
      : new Date(request.from);
  if (from.getTime() >= to.getTime()) throw invalid("from", "o início da janela deve ser anterior ao fim");
  if (to.getTime() - from.getTime() > maxWindowSeconds * 1000) {
    throw invalid("from", `a janela cobre no máximo 7 dias (${maxWindowSeconds} segundos)`);
  }
  return { from: from.toISOString(), to: to.toISOString() };
}

export function bankReconcileUseCases(deps: DomainDeps) {
  const receipts = bankReceiptUseCases(deps);

  /**
   * A page kept in one store transaction (`keepReceivedPage`); should that fail on anything but
   * the store being away, the page is kept a Pix at a time, as callbacks keep them.
   */
  async function keepPage(bank: PixBank, page: readonly ReceivedPix[]): Promise<ReceiptOutcome[]> {
    try {
      return await keepReceivedPage(deps, bank, page);
    } catch (error) {
      if (error instanceof DomainError) throw error; // the store away: the next run covers the window
      deps.logger.warn({ err: error }, "bank: a reconciliation page kept one Pix at a time");
      const outcomes: ReceiptOutcome[] = [];
      for (const pix of page) outcomes.push(await receipts.handle(bank, pix));
      return outcomes;
    }
  }

  /**
   * Keeps every Pix the bank received in [from, to). Answers null when no bank is connected.
   * A bank that stops answering ends the run (its error is thrown): the next run covers the
   * window again. The run's end is recorded in the connection's health.
   */
  async function reconcile(window: { from: string; to: string }): Promise<Reconciliation | null> {
    const bank = await deps.bank?.current();
    if (!bank) return null;
    const counts: Record<ReceiptOutcome, number> = {
      credited: 0,
      known: 0,
      unmatched: 0,
      foreign: 0,
      unknown: 0,
      unavailable: 0,
    };
    let pages = 1;
    // The next page is asked for while this one is kept: the bank's time overlaps the store's.
    let next = bank.listReceived(window, 0);
    for (let page = 0; page < pages; page++) {
      const answer = await next;
      pages = answer.pages;
      if (page + 1 < pages) {
        next = bank.listReceived(window, page + 1);
        next.catch(() => undefined); // awaited at the next turn, or dropped with the run's error
      }
      for (const outcome of await keepPage(bank, answer.items)) counts[outcome]++;
      // A devolução the bank reports on a Pix is followed as a callback follows it.
      for (const pix of answer.items) {
        if (pix.key === bank.pixKey && pix.refunds.length > 0) await receipts.handle(bank, pix);
      }
    }
    // Pix Automático's listings (`GET /rec`, `GET /cobr`) over their own windows: what callbacks missed.
    const automatic = await reconcileRecurrencesAtBank(deps, bank);
    if (automatic && automatic.recurrences.changed + automatic.cycleCharges.changed > 0) {
      deps.logger.info(automatic, "bank: reconciliation followed recurrences the callbacks missed");
    }
    await recordBankHealth(deps, { lastReconciliationAt: deps.clock.now().toISOString() });
    return { ...window, pages, counts };
  }

  return {
    reconcile,

    /**
     * The operator's run, now (`POST /admin/v1/bank/reconciliations`): the scheduled run over the
     * window asked for (default the schedule's, `DomainConfig.bankReconcileWindowSeconds`), then a
     * pass over every withdrawal paid out by the bank still `PENDING`, each pending transfer read
     * now (the job's pauses for old ones aside): what the bank settled is written, and counted in
     * `withdrawalTransfersSettled`. No connection is `NOT_FOUND`; a bank that does not answer or
     * refuses the read is `SERVICE_UNAVAILABLE` with `Retry-After` (what earlier pages credited
     * stays credited).
     */
    async reconcileNow(
      request: Schemas["BankReconciliationRequest"],
      /**
       * The withdrawals paid out by the bank (issue 36 §3; the domain's `withdrawalPayouts`, the
       * one the job passes with): settled in the same run; without it, received Pix only.
       */
      payouts?: Pick<WithdrawalPayouts, "followPending">,
    ): Promise<Schemas["BankReconciliation"]> {
      const window = windowOf(request, deps.clock.now(), deps.config.bankReconcileWindowSeconds);
      let run: Reconciliation | null;
      try {
        run = await reconcile(window);
      } catch (error) {
        if (!(error instanceof BankUnavailableError || error instanceof BankRefusedError)) throw error;
        // The catalogue's message, as every SERVICE_UNAVAILABLE: the bank's reason is in the log.
        deps.logger.warn({ err: error, ...window }, "bank: the operator's reconciliation did not finish");
        throw new DomainError("SERVICE_UNAVAILABLE", undefined, { retryAfterSeconds: bankDownRetryAfterSeconds });
      }
      if (!run) throw noBankConnection();
      const { counts } = run;
      // A transfer the bank does not answer about is left to the job (the pass logs it): never a 5xx here.
      const followed = payouts ? await payouts.followPending({ force: true }) : null;
      const withdrawalTransfersSettled = followed?.transfersSettled ?? 0;
      deps.logger.info({ ...window, ...counts, withdrawalTransfersSettled }, "bank: the operator ran a reconciliation");
      return {
        from: run.from,
        to: run.to,
        pages: run.pages,
        read: Object.values(counts).reduce((n, c) => n + c, 0),
        credited: counts.credited,
        known: counts.known,
        unmatched: counts.unmatched,
        foreign: counts.foreign,
        withdrawalTransfersSettled,
      };
    },
  };
}
