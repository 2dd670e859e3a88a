import type { DomainDeps } from "../deps.js";
import type { components } from "../../../../generated/dashboard-api.js";
import type { BalanceTotals, LedgerEntry, Scope } from "../core/model.js";
import { fieldError } from "../core/errors.js";
import type { StoreReads } from "../ports/store.js";
import type { ModeCaller } from "../identity/index.js";

// The statement (extrato, issue 37 §2): every movement of one mode's balance in a period, read from
// the ledger the balance is the sum of (store `ledger.period`), so it always adds up to it. A
// movement is the ledger entries one change appended together (a MED's block is two: available
// down, blocked up), or the release of pending money at the instant its release period ends (no
// entry is appended then: an entry's `releaseAt` says when it stops being pending). Each carries
// the balance right after it. docs/dashboard-app.md, "Extrato".

type StatementEntry = components["schemas"]["StatementEntry"];
/** One movement of a statement, as the API answers it. */
export type StatementMovement = StatementEntry;
type StatementBalance = components["schemas"]["StatementBalance"];
type Movement = Omit<
  StatementEntry,
  "balanceAfter" | "feeCents" | "grossAmountCents" | "transactionId" | "description"
>;

const typeOfKind: Record<LedgerEntry["kind"], StatementEntry["type"]> = {
  charge_paid: "payment",
  pending_released: "early_release",
  refund: "refund",
  refund_returned: "refund_failed",
  withdrawal: "withdrawal",
  withdrawal_returned: "withdrawal_returned",
  dispute_opened: "dispute_opened",
  dispute_won: "dispute_won",
  dispute_lost: "dispute_lost",
};

/** The first instant of every statement without `createdFrom`: before any entry. */
const beginning = "1970-01-01T00:00:00.000Z";

const withTotal = (b: BalanceTotals): StatementBalance => ({
  availableCents: b.availableCents,
  pendingCents: b.pendingCents,
  blockedCents: b.blockedCents,
  totalCents: b.availableCents + b.pendingCents + b.blockedCents,
});

/** The entries one change appended (same kind, object and instant, one after the other) as a movement. */
function movementOf(group: LedgerEntry[]): Movement {
  const first = group[0] as LedgerEntry;
  const parts = { availableCents: 0, pendingCents: 0, blockedCents: 0 };
  for (const e of group) {
    if (e.bucket === "blocked") parts.blockedCents += e.amountCents;
    else if (e.releaseAt !== null && e.releaseAt > e.createdAt) parts.pendingCents += e.amountCents;
    else parts.availableCents += e.amountCents;
  }
  return {
    id: first.id,
    type: typeOfKind[first.kind],
    createdAt: first.createdAt,
    amountCents: parts.availableCents + parts.pendingCents + parts.blockedCents,
    ...parts,
    // A test mode release's entries name each other, not an object.
    sourceId: first.kind === "pending_released" ? null : first.refId,
  };
}

const releaseMovement = (releaseAt: string, cents: number): Movement => ({
  id: `rls_${releaseAt.replace(/\D/g, "")}`,
  type: "release",
  createdAt: releaseAt,
  amountCents: 0,
  availableCents: cents,
  pendingCents: -cents,
  blockedCents: 0,
  sourceId: null,
});

/** A statement of [from, to): its movements oldest first with the balance after each, and both ends. */
async function periodStatement(reads: StoreReads, scope: Scope, from: string, to: string) {
  const period = await reads.ledger.period(scope, from, to);
  const groups: LedgerEntry[][] = [];
  for (const e of period.entries) {
    const last = groups.at(-1)?.[0];
    if (last && last.kind === e.kind && last.refId === e.refId && last.createdAt === e.createdAt)
      groups.at(-1)?.push(e);
    else groups.push([e]);
  }
  const releases = period.releases.filter((r) => r.amountCents !== 0);
  const movements: Movement[] = [];
  let next = 0;
  for (const group of groups) {
    const at = (group[0] as LedgerEntry).createdAt;
    // Money released at an instant is available to what happens at that instant.
    for (; next < releases.length && (releases[next]?.releaseAt ?? "") <= at; next += 1) {
      const r = releases[next];
      if (r) movements.push(releaseMovement(r.releaseAt, r.amountCents));
    }
    movements.push(movementOf(group));
  }
  for (const r of releases.slice(next)) movements.push(releaseMovement(r.releaseAt, r.amountCents));
  let balance = { ...period.opening };
  const oldestFirst = movements.map((m) => {
    balance = {
      availableCents: balance.availableCents + m.availableCents,
      pendingCents: balance.pendingCents + m.pendingCents,
      blockedCents: balance.blockedCents + m.blockedCents,
    };
    return { ...m, balanceAfter: withTotal(balance) };
  });
  return { oldestFirst, opening: withTotal(period.opening), closing: withTotal(balance) };
}

/** The fee, the charge and its description of each movement, read from the objects that moved it. */
async function described(
  reads: StoreReads,
  scope: Scope,
  movements: (Movement & { balanceAfter: StatementBalance })[],
) {
  return Promise.all(
    movements.map(async (m): Promise<StatementEntry> => {
      let feeCents = 0;
      let transactionId: string | null = null;
      if (m.type === "payment" && m.sourceId) {
        const charge = await reads.transactions.get(scope, m.sourceId);
        feeCents = charge?.feeCents ?? 0;
        transactionId = m.sourceId;
      } else if (m.type === "withdrawal" && m.sourceId) {
        feeCents = (await reads.withdrawals.get(scope, m.sourceId))?.feeCents ?? 0;
      } else if ((m.type === "refund" || m.type === "refund_failed") && m.sourceId) {
        transactionId = (await reads.refunds.get(scope, m.sourceId))?.transactionId ?? null;
      }
      const charge = transactionId ? await reads.transactions.get(scope, transactionId) : null;
      return {
        ...m,
        feeCents,
        grossAmountCents: m.amountCents + feeCents,
        transactionId,
        description: charge?.description ?? null,
      };
    }),
  );
}

/** The statement's period: `createdFrom` or the beginning, to `createdTo` capped at now (exclusive, to the millisecond). */
function periodOf(filter: { createdFrom?: string; createdTo?: string }, now: Date) {
  const end = new Date(now.getTime() + 1).toISOString();
  const to = filter.createdTo && filter.createdTo < end ? new Date(filter.createdTo).toISOString() : end;
  const from = filter.createdFrom ? new Date(filter.createdFrom).toISOString() : beginning;
  return { from, to };
}

/** Movements per page read for the CSV export. */
const exportPageSize = 100;

export function statementUseCases(deps: DomainDeps) {
  return {
    /** One page of the statement of the period, newest first, after `startingAfter` (a movement's id). */
    async page(
      caller: Pick<ModeCaller, "scope">,
      filter: { createdFrom?: string; createdTo?: string },
      page: { limit: number; startingAfter?: string },
    ): Promise<components["schemas"]["Statement"]> {
      const { from, to } = periodOf(filter, deps.clock.now());
      const s = await periodStatement(deps.store.read, caller.scope, from, to);
      const newestFirst = s.oldestFirst.reverse();
      let start = 0;
      if (page.startingAfter !== undefined) {
        const at = newestFirst.findIndex((m) => m.id === page.startingAfter);
        if (at < 0) throw fieldError("startingAfter", "não corresponde a nenhum item desta lista");
        start = at + 1;
      }
      const items = newestFirst.slice(start, start + page.limit);
      return {
        data: await described(deps.store.read, caller.scope, items),
        hasMore: start + page.limit < newestFirst.length,
        opening: s.opening,
        closing: s.closing,
      };
    },

    /** Every movement of the period, newest first, described page by page as the consumer reads them. */
    async all(
      caller: Pick<ModeCaller, "scope">,
      filter: { createdFrom?: string; createdTo?: string },
    ): Promise<{ asOf: string; pages: AsyncIterable<StatementEntry[]> }> {
      const now = deps.clock.now();
      const { from, to } = periodOf(filter, now);
      const reads = deps.store.read;
      const newestFirst = (await periodStatement(reads, caller.scope, from, to)).oldestFirst.reverse();
      async function* pages(): AsyncGenerator<StatementEntry[]> {
        for (let i = 0; i === 0 || i < newestFirst.length; i += exportPageSize) {
          yield await described(reads, caller.scope, newestFirst.slice(i, i + exportPageSize));
        }
      }
      return { asOf: now.toISOString(), pages: pages() };
    },
  };
}
