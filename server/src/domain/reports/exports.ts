import { chargesPage, type ListFilter, resolvedFilter } from "../payments/index.js";
import type { DomainDeps } from "../deps.js";
import type { PageRequest, PageResult, Schemas, Scope } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { pageLimit } from "../core/policy.js";
import { presentTransaction } from "../payments/index.js";
import { presentWithdrawal } from "../balance/index.js";

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

export function exportUseCases(deps: DomainDeps) {
  return {
    /**
     * Every charge of the scope that the transaction list shows with `filter`, as the list presents
     * it; one instant decides expiry for the whole file, so a charge cannot change status between
     * its pages.
     */
    async transactions(scope: Scope, filter: ListFilter): Promise<Export<Schemas["Transaction"]>> {
      const at = deps.clock.now().toISOString();
      const where = await resolvedFilter(deps.store.read, scope, filter, at);
      const pages = await everyPage(
        (page) => chargesPage(deps.store.read, scope, where, page),
        (t) => presentTransaction(t, at),
      );
      return { asOf: at, pages };
    },

    /** Every withdrawal of the scope, newest first, as the withdrawal list presents it. */
    async withdrawals(scope: Scope): Promise<Export<Schemas["Withdrawal"]>> {
      const asOf = deps.clock.now().toISOString();
      const pages = await everyPage((page) => deps.store.read.withdrawals.list(scope, page), presentWithdrawal);
      return { asOf, pages };
    },
  };
}
