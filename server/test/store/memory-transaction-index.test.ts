import { describe, expect, test } from "vitest";
import type { Scope, TransactionRecord, TransactionStatus } from "../../src/domain/core/model.js";
import { type TransactionFilter, statusMatches, UnknownCursorError } from "../../src/domain/ports/store.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { transactionRecord } from "./contract.js";

// The memory store lists transactions from per-scope, per-status and per-link indexes instead of
// sorting every charge. This checks it against the plain definition (sort the scope newest first
// on (createdAt, id), start after the cursor, which any transaction of the scope can be, keep what
// the filter matches) on seeded random data, updates and rolled-back writes.

function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const T0 = Date.parse("2026-10-04T12:00:00.000Z");
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const statuses: TransactionStatus[] = ["WAITING_PAYMENT", "PAID", "EXPIRED", "CANCELLED"];

function expected(rows: TransactionRecord[], scope: Scope, f: TransactionFilter, limit: number, after?: string) {
  const sorted = rows
    .filter((t) => t.accountId === scope.accountId && t.livemode === scope.livemode)
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  let start = 0;
  if (after !== undefined) {
    // Any transaction of the scope marks the place, whether the filter keeps it or not.
    const at = sorted.findIndex((t) => t.id === after);
    if (at < 0) return "unknown cursor";
    start = at + 1;
  }
  const listed = sorted
    .slice(start)
    .filter(
      (t) =>
        (f.status === undefined || statusMatches(t, f.status, f.now)) &&
        (f.paymentLinkId === undefined || t.paymentLinkId === f.paymentLinkId) &&
        (f.createdFrom === undefined || t.createdAt >= f.createdFrom) &&
        (f.createdTo === undefined || t.createdAt < f.createdTo),
    );
  return { ids: listed.slice(0, limit).map((t) => t.id), hasMore: listed.length > limit };
}

describe("memory store transaction lists", () => {
  test("when charges are inserted, updated and rolled back at random, then every page equals the plain definition", async () => {
    const rnd = random(15);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)] as T;
    const store = new MemoryStore();
    const scopes: Scope[] = [
      { accountId: "acc_a", livemode: false },
      { accountId: "acc_a", livemode: true },
      { accountId: "acc_b", livemode: false },
    ];
    const links = ["plk_1", "plk_2", null];
    const rows = new Map<string, TransactionRecord>();
    for (let i = 0; i < 400; i++) {
      // Few distinct instants: ties on createdAt are common, ids break them.
      const t = transactionRecord(pick(scopes), {
        status: pick(statuses),
        paymentLinkId: pick(links),
        createdAt: iso(Math.floor(rnd() * 60)),
        expiresAt: iso(Math.floor(rnd() * 120)),
      });
      await store.transaction(async (tx) => tx.transactions.insert(t));
      rows.set(t.id, t);
    }
    for (let i = 0; i < 150; i++) {
      const current = pick([...rows.values()]);
      const changed = { ...current, status: pick(statuses), paymentLinkId: pick(links) };
      const rollBack = rnd() < 0.3;
      await store
        .transaction(async (tx) => {
          await tx.transactions.update(changed);
          if (rollBack) throw new Error("rolled back");
        })
        .catch(() => undefined);
      if (!rollBack) rows.set(changed.id, changed);
    }
    const all = [...rows.values()];
    for (let i = 0; i < 2000; i++) {
      const scope = pick(scopes);
      const filter: TransactionFilter = { now: iso(Math.floor(rnd() * 120)) };
      if (rnd() < 0.5) filter.status = pick(statuses);
      if (rnd() < 0.3) filter.paymentLinkId = pick(["plk_1", "plk_2", "plk_none"]);
      if (rnd() < 0.3) filter.createdFrom = iso(Math.floor(rnd() * 60));
      if (rnd() < 0.3) filter.createdTo = iso(Math.floor(rnd() * 60));
      const limit = 1 + Math.floor(rnd() * 25);
      const after = rnd() < 0.5 ? pick(all).id : undefined;
      const want = expected(all, scope, filter, limit, after);
      const got = await store.read.transactions
        .list(scope, filter, { limit, startingAfter: after })
        .then((page) => ({ ids: page.items.map((t) => t.id), hasMore: page.hasMore }))
        .catch((error: unknown) => {
          if (error instanceof UnknownCursorError) return "unknown cursor";
          throw error;
        });
      expect(got, JSON.stringify({ scope, filter, limit, after })).toEqual(want);
    }
  });
});
