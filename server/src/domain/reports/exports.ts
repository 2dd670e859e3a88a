import { chargesPage, type ListFilter, resolvedFilter } from "../payments/index.js";
import type { DomainDeps } from "../deps.js";
import type { PageRequest, PageResult, Schemas } from "../core/model.js";
import type { StatementMovement } from "./statement.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { pageLimit } from "../core/policy.js";
import { presentTransaction } from "../payments/index.js";
import { presentWithdrawal } from "../balance/index.js";
import type { ModeCaller } from "../identity/index.js";
import { DomainError } from "../core/errors.js";
import { randomBase62 } from "../core/ids.js";
import { statementUseCases } from "./statement.js";

// The dashboard's CSV exports (issue 25): every item of a list, with the list's filters, page by
// page through the store's cursor, each page read only when the one before has been written out.
// The HTTP layer writes them as CSV (http/csv.ts). docs/decisions/0025-csv-export.md.

/** Items per page read for an export: the largest page of the lists. */
const exportPageSize = pageLimit.max;

/**
 * Every page of a list, newest first. The first page is read before this resolves, so that a
 * failure there (the database away) is an ordinary error answer; each following page when the
 * consumer asks for it. Keyset pages neither skip nor repeat an item when new ones arrive meanwhile
 * (they are newer than the first page, so not in the export).
 */
async function everyPage<T extends { id: string }, V>(
  read: (page: PageRequest) => Promise<PageResult<T>>,
  present: (item: T) => V,
): Promise<AsyncIterable<V[]>> {
  const first = await pageOrInvalidCursor(() => read({ limit: exportPageSize }));
  async function* pages(): AsyncGenerator<V[]> {
    let page = first;
    yield page.items.map(present);
    while (page.hasMore) {
      const last = page.items[page.items.length - 1];
      if (!last) return;
      page = await pageOrInvalidCursor(() => read({ limit: exportPageSize, startingAfter: last.id }));
      yield page.items.map(present);
    }
  }
  return pages();
}

/** An export under way: the instant it is of, and its pages. */
export interface Export<V> {
  asOf: string;
  pages: AsyncIterable<V[]>;
}

/**
 * A user's exports at once, whichever server process streams them (the store's `exportLeases`):
 * each holds a slot from before its first page is read until its last is written, it fails, or
 * the client hangs up; a slot also frees itself `leaseSeconds` after the last page read, should
 * the process die mid-export. docs/decisions/0046-csv-exports-two-at-once-per-user.md.
 */
const exportSlots = { perUser: 2, leaseSeconds: 300, retryAfterSeconds: 10 } as const;

/** Who exports: the user (whose slots count) in one mode of its account. */
type Exporter = Pick<ModeCaller, "scope" | "user">;

export function exportUseCases(deps: DomainDeps) {
  const statement = statementUseCases(deps);
  const leaseEnd = () => new Date(deps.clock.now().getTime() + exportSlots.leaseSeconds * 1000).toISOString();

  /**
   * Runs `start` (which reads the first page) holding one of the user's slots, and answers its
   * export with pages that give the slot back when they end, fail or are abandoned (the consumer's
   * `return()`, as `for await` and `pipeline` call it); each page read renews the lease. A failure
   * before the pages are handed over gives it back at once. `429 RATE_LIMITED` when both slots are
   * held.
   */
  async function leased<V>(exporter: Exporter, start: () => Promise<Export<V>>): Promise<Export<V>> {
    const leases = deps.store.exportLeases;
    const lease = { id: randomBase62(24), userId: exporter.user.id, expiresAt: leaseEnd() };
    if (!(await leases.take(lease, exportSlots.perUser, deps.clock.now().toISOString()))) {
      throw new DomainError(
        "RATE_LIMITED",
        `Você já tem ${exportSlots.perUser} exportações em andamento. Aguarde uma terminar e tente novamente.`,
        { retryAfterSeconds: exportSlots.retryAfterSeconds },
      );
    }
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await leases.release(lease.id);
    };
    let started: Export<V>;
    try {
      started = await start();
    } catch (error) {
      await release();
      throw error;
    }
    async function* pages(): AsyncGenerator<V[]> {
      try {
        let first = true;
        for await (const page of started.pages) {
          if (!first) await leases.renew(lease.id, leaseEnd());
          first = false;
          yield page;
        }
      } finally {
        await release();
      }
    }
    return { asOf: started.asOf, pages: pages() };
  }

  return {
    /**
     * Every charge of the caller's scope that the transaction list shows with `filter`, as the list
     * presents it; one instant decides expiry for the whole file, so a charge cannot change status
     * between its pages. Holds one of the user's export slots while under way (`exportSlots`).
     */
    async transactions(exporter: Exporter, filter: ListFilter): Promise<Export<Schemas["Transaction"]>> {
      return leased(exporter, async () => {
        const { scope } = exporter;
        const at = deps.clock.now().toISOString();
        const where = await resolvedFilter(deps.store.read, scope, filter, at);
        const pages = await everyPage(
          (page) => chargesPage(deps.store.read, scope, where, page),
          (t) => presentTransaction(t, at),
        );
        return { asOf: at, pages };
      });
    },

    /**
     * Every withdrawal of the caller's scope, newest first, as the withdrawal list presents it.
     * Holds one of the user's export slots while under way (`exportSlots`).
     */
    async withdrawals(exporter: Exporter): Promise<Export<Schemas["Withdrawal"]>> {
      return leased(exporter, async () => {
        const asOf = deps.clock.now().toISOString();
        const pages = await everyPage(
          (page) => deps.store.read.withdrawals.list(exporter.scope, page),
          presentWithdrawal,
        );
        return { asOf, pages };
      });
    },

    /**
     * Every movement of the statement of the period (statement.ts), newest first. Holds one of the
     * user's export slots while under way (`exportSlots`).
     */
    async statement(
      exporter: Exporter,
      filter: { createdFrom?: string; createdTo?: string },
    ): Promise<Export<StatementMovement>> {
      return leased(exporter, () => statement.all(exporter, filter));
    },
  };
}
