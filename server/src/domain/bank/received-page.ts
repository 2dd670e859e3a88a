import type { DomainDeps } from "../deps.js";
import type {
  Account,
  DeliveryRecord,
  EventRecord,
  LedgerEntry,
  Scope,
  TransactionRecord,
  WebhookEndpointRecord,
} from "../core/model.js";
import type { PixBank, ReceivedPix } from "../ports/pix-bank.js";
import type { ReceivedPixRecord } from "../ports/received-pix-store.js";
import type { NoticeRecord } from "../ports/notice-store.js";
import type { StoreTx } from "../ports/store.js";
import { chargeIdOfTxid, creditPaidCharge } from "../payments/index.js";
import { asPaidBy, paidInstant, receivedRow, unmatchedReason, type ReceiptOutcome } from "./received.js";

// A page of received Pix kept at once (issue 35's speed: one reconciliation credits 10,000 missed
// payments within 60 s). The reconciler reads the bank's `GET /pix` a page at a time; keeping each
// Pix in a transaction of its own cost a commit and a dozen round trips per Pix (101.6 s for
// 10,000 on PostgreSQL). Here a page is one store transaction deciding each Pix exactly as a
// callback does (`received.ts`): the same reasons, the same rows, the credit and its row in the
// same transaction, under the scope lock of every charge the page pays, taken in one order (so two
// reconcilers, or a reconciler and a callback, wait for each other rather than deadlock). Under
// those locks the page reads which of its end-to-end ids are kept already: a callback or another
// process that kept one first makes it `known` here, and one this page keeps makes it `known`
// there.

/**
 * The page's transaction with its charges' updates and its appends held until `flush` (the
 * charges, ledger entries and events in one statement each, then the deliveries): a credit's four
 * round trips to PostgreSQL become none of its own. The scope's endpoints for an event type are
 * read once per page. A read of the charges, the ledger, the events or the deliveries flushes
 * first, so nothing read misses what was written.
 */
function writeBehind(tx: StoreTx): { tx: StoreTx; flush: () => Promise<void> } {
  const charges = new Map<string, TransactionRecord>();
  const entries: LedgerEntry[] = [];
  const events: EventRecord[] = [];
  const deliveries: DeliveryRecord[] = [];
  const notices: NoticeRecord[] = [];
  const endpoints = new Map<string, Promise<WebhookEndpointRecord[]>>();
  const flush = async () => {
    if (charges.size > 0) {
      const updated = [...charges.values()];
      charges.clear();
      await tx.transactions.updateMany(updated);
    }
    if (entries.length > 0) await tx.ledger.appendMany(entries.splice(0));
    if (events.length > 0) await tx.events.appendMany(events.splice(0));
    for (const delivery of deliveries.splice(0)) await tx.deliveries.insert(delivery);
    if (notices.length > 0) await tx.notices.insertManyIfAbsent(notices.splice(0));
  };
  /** The scope's endpoints for an event type, read once per page. */
  const listForEvent = (scope: Scope, type: string): Promise<WebhookEndpointRecord[]> => {
    const key = `${scopeKey(scope)}\u0000${type}`;
    let listed = endpoints.get(key);
    if (!listed) endpoints.set(key, (listed = tx.webhookEndpoints.listForEvent(scope, type)));
    return listed;
  };
  /** `part` whose every function flushes the held appends before it runs. */
  const flushing = <T extends object>(part: T): T =>
    Object.fromEntries(
      Object.entries(part).map(([name, f]) => [
        name,
        async (...args: unknown[]) => {
          await flush();
          return (f as (...a: unknown[]) => Promise<unknown>)(...args);
        },
      ]),
    ) as T;
  return {
    flush,
    tx: {
      ...tx,
      transactions: {
        ...flushing(tx.transactions),
        update: async (charge) => void charges.set(charge.id, charge),
      },
      ledger: {
        ...flushing(tx.ledger),
        append: async (entry) => void entries.push(entry),
      },
      events: {
        ...flushing(tx.events),
        append: async (event) => void events.push(event),
        appendListingEndpoints: async (event) => {
          events.push(event);
          return listForEvent(event, event.type);
        },
      },
      deliveries: {
        ...flushing(tx.deliveries),
        insert: async (delivery) => void deliveries.push(delivery),
      },
      // An event's e-mail notice (its id new with the event): held as the event is.
      notices: {
        ...flushing(tx.notices),
        insertIfAbsent: async (notice) => {
          notices.push(notice);
          return true;
        },
      },
      webhookEndpoints: {
        ...flushing(tx.webhookEndpoints),
        listForEvent,
      },
    },
  };
}

/** A scope's lock key as the page sorts them: the same order in every process. */
const scopeKey = (scope: Scope) => `${scope.accountId}\u0000${scope.livemode ? 1 : 0}`;

/**
 * Keeps a page of received Pix in one store transaction: each answer's outcome in the page's
 * order. A Pix to another key is `foreign`; a second one with an end-to-end id seen earlier in
 * the page, or one kept already, is `known`. Throws what the store throws (nothing kept then);
 * also when a credited Pix's row turns out to be kept already, which the scope locks rule out.
 */
export async function keepReceivedPage(
  deps: DomainDeps,
  bank: PixBank,
  page: readonly ReceivedPix[],
): Promise<ReceiptOutcome[]> {
  const outcomes: ReceiptOutcome[] = new Array<ReceiptOutcome>(page.length).fill("known");
  /** The page's first Pix of each end-to-end id to our key, by id: its index in `page`. */
  const todo = new Map<string, number>();
  page.forEach((pix, i) => {
    if (pix.key !== bank.pixKey) {
      deps.logger.warn({ endToEndId: pix.endToEndId }, "bank: received Pix to another key ignored");
      outcomes[i] = "foreign";
    } else if (!todo.has(pix.endToEndId)) {
      todo.set(pix.endToEndId, i);
    }
  });
  // Kept before this run: known, no lock needed to say so (a kept row is never removed).
  for (const kept of await deps.store.read.receivedPix.getMany([...todo.keys()])) todo.delete(kept.id);
  if (todo.size === 0) return outcomes;

  const chargeIdOf = (pix: ReceivedPix) => (pix.txid === null ? null : chargeIdOfTxid(pix.txid));
  const chargeIds = new Set<string>();
  for (const i of todo.values()) {
    const id = chargeIdOf(page[i] as ReceivedPix);
    if (id !== null) chargeIds.add(id);
  }
  const found = await deps.store.read.transactions.getManyById([...chargeIds]);
  const scopes = new Map(
    found.map((charge) => [scopeKey(charge), { accountId: charge.accountId, livemode: charge.livemode }]),
  );
  const locks = [...scopes.keys()].sort().map((key) => scopes.get(key) as Scope);

  const decided = await deps.store.transaction(async (storeTx) => {
    const { tx, flush } = writeBehind(storeTx);
    for (const scope of locks) await tx.lockScope(scope);
    const keptNow = new Set((await tx.receivedPix.getMany([...todo.keys()])).map((kept) => kept.id));
    const charges = new Map<string, TransactionRecord>(
      (await tx.transactions.getManyById(found.map((charge) => charge.id))).map((charge) => [charge.id, charge]),
    );
    const accounts = new Map<string, Account>();
    const at = deps.clock.now().toISOString();
    const rows: { index: number; row: ReceivedPixRecord }[] = [];
    for (const [endToEndId, index] of todo) {
      if (keptNow.has(endToEndId)) continue;
      const pix = page[index] as ReceivedPix;
      const paidAt = paidInstant(pix, at);
      const chargeId = chargeIdOf(pix);
      const charge = chargeId === null ? null : (charges.get(chargeId) ?? null);
      const reason = unmatchedReason(pix, chargeId, charge, paidAt);
      if (reason !== null || !charge) {
        rows.push({ index, row: receivedRow(pix, paidAt, at, { reason: reason ?? "Cobrança não encontrada." }) });
        continue;
      }
      let account = accounts.get(charge.accountId);
      if (!account) {
        account = (await tx.accounts.get(charge.accountId)) ?? undefined;
        if (!account) throw new Error(`charge ${charge.id} without its account`);
        accounts.set(account.id, account);
      }
      // A second Pix to the same charge later in the page finds it paid (and is kept unmatched).
      charges.set(
        charge.id,
        await creditPaidCharge(tx, account, asPaidBy(deps, charge, pix, paidAt), paidAt, { config: deps.config }),
      );
      rows.push({ index, row: receivedRow(pix, paidAt, at, { charge }) });
    }
    await flush();
    const inserted = await tx.receivedPix.insertManyIfAbsent(rows.map(({ row }) => row));
    return rows.map(({ index, row }): [number, ReceiptOutcome, ReceivedPixRecord] => {
      if (inserted.has(row.id)) return [index, row.outcome === "CREDITED" ? "credited" : "unmatched", row];
      if (row.outcome === "CREDITED") throw new Error(`received Pix ${row.id} kept twice`); // rolls the page back
      return [index, "known", row];
    });
  });
  for (const [index, outcome, row] of decided) {
    outcomes[index] = outcome;
    if (outcome === "unmatched") {
      deps.logger.warn({ endToEndId: row.id, reason: row.reason }, "bank: unmatched receipt kept");
    }
  }
  return outcomes;
}
