import type { DomainDeps } from "../deps.js";
import { recordBankHealth } from "./connection.js";
import { bankReceiptUseCases, type ReceiptOutcome } from "./received.js";

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

export function bankReconcileUseCases(deps: DomainDeps) {
  const receipts = bankReceiptUseCases(deps);
  return {
    /**
     * Keeps every Pix the bank received in [from, to). Answers null when no bank is connected.
     * A bank that stops answering ends the run (its error is thrown): the next run covers the
     * window again. The run's end is recorded in the connection's health.
     */
    async reconcile(window: { from: string; to: string }): Promise<Reconciliation | null> {
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
      for (let page = 0; page < pages; page++) {
        const answer = await bank.listReceived(window, page);
        pages = answer.pages;
        for (const pix of answer.items) counts[await receipts.handle(bank, pix)]++;
      }
      await recordBankHealth(deps, { lastReconciliationAt: deps.clock.now().toISOString() });
      return { ...window, pages, counts };
    },
  };
}
