import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { newId } from "../../src/domain/core/ids.js";
import type { PageRequest, RecurrenceRecord, Scope } from "../../src/domain/core/model.js";
import type { Store, StoreTx } from "../../src/domain/ports/store.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { accountRecord, transactionRecord } from "./contract.js";
import { createTestDatabase, pgAdminUrl, type TestDatabase } from "../support/pg.js";

// The store port's recurrences (Pix Automático), one contract for both adapters: a record reads
// back field for field, lists filter and page as the domain expects, a recurrence's charges come
// oldest first, and the background pass's two reads find what they must.

const at = (seconds: number) => new Date(Date.UTC(2026, 9, 4, 15, 30) + seconds * 1000).toISOString();

function recurrenceRecord(scope: Scope, overrides: Partial<RecurrenceRecord> = {}): RecurrenceRecord {
  return {
    id: newId("rec"),
    ...scope,
    status: "CREATED",
    journey: "JOURNEY_2",
    payer: {
      id: newId("cus"),
      name: "Maria da Silva Santos",
      email: "maria.santos@example.com.br",
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
    },
    contractReference: "ACADEMIA-0042",
    description: "Mensalidade Academia",
    periodicity: "MONTHLY",
    firstDate: "2026-11-04",
    lastDate: null,
    amountCents: 4990,
    minimumAmountCents: null,
    payerMaximumAmountCents: null,
    retryPolicy: "RETRY_3_IN_7_DAYS",
    automaticCharges: false,
    initialTransactionId: null,
    brCode: "00020126180014br.gov.bcb.pix5204000053039865802BR",
    metadata: { plano: "mensal ✓" },
    expiresAt: at(86_400),
    approvedAt: null,
    rejection: null,
    cancellation: null,
    history: [{ status: "CREATED", at: at(0) }],
    simulatedDate: null,
    bankLocId: null,
    bankRecId: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function recurrenceContract(name: string, makeStore: () => Promise<Store>) {
  describe(`Store contract, recurrences: ${name}`, () => {
    let store: Store;
    let scope: Scope;
    beforeEach(async () => {
      store = await makeStore();
      const account = accountRecord();
      await store.transaction((tx) => tx.accounts.insert(account));
      scope = { accountId: account.id, livemode: false };
    });
    afterEach(async () => {
      await store.close();
    });
    const write = <T>(work: (tx: StoreTx) => Promise<T>) => store.transaction(work);

    test("when a recurrence is inserted and updated, then get and getById return it field for field; another scope's get is null", async () => {
      const r = recurrenceRecord(scope, { lastDate: "2027-11-04", simulatedDate: "2026-10-25" });
      await write((tx) => tx.recurrences.insert(r));
      const approved: RecurrenceRecord = {
        ...r,
        status: "CANCELLED",
        approvedAt: at(60),
        cancellation: { requestedBy: "PAYER_PSP", code: "ACCL", reason: "Conta encerrada." },
        bankLocId: 4_271,
        bankRecId: "RR1234567820301128abcdefghijk",
        history: [...r.history, { status: "APPROVED", at: at(60) }, { status: "CANCELLED", at: at(120) }],
        updatedAt: at(120),
      };
      await write((tx) => tx.recurrences.update(approved));

      expect(await store.read.recurrences.get(scope, r.id)).toEqual(approved);
      expect(await store.read.recurrences.getById(r.id)).toEqual(approved);
      expect(await store.read.recurrences.get({ ...scope, livemode: true }, r.id)).toBeNull();
    });

    test("when recurrences are listed, then newest first by page, EXPIRED counts CREATED ones past expiresAt, and the payer filters", async () => {
      const old = recurrenceRecord(scope, { createdAt: at(1), expiresAt: at(100) });
      const fresh = recurrenceRecord(scope, { createdAt: at(2), expiresAt: at(10_000) });
      const approved = recurrenceRecord(scope, { createdAt: at(3), status: "APPROVED" });
      for (const r of [old, fresh, approved]) await write((tx) => tx.recurrences.insert(r));
      const now = at(500);
      const ids = async (filter: object, page: PageRequest = { limit: 10 }) =>
        (await store.read.recurrences.list(scope, { now, ...filter }, page)).items.map((r) => r.id);

      expect(await ids({})).toEqual([approved.id, fresh.id, old.id]);
      expect(await ids({ status: "EXPIRED" })).toEqual([old.id]);
      expect(await ids({ status: "CREATED" })).toEqual([fresh.id]);
      expect(await ids({ status: "APPROVED" })).toEqual([approved.id]);
      expect(await ids({ customerId: fresh.payer.id })).toEqual([fresh.id]);
      expect(await ids({}, { limit: 1, startingAfter: fresh.id })).toEqual([old.id]);
    });

    test("when a recurrence has charges, then listByRecurrence gives them oldest first and the transactions filter finds them", async () => {
      const r = recurrenceRecord(scope, { status: "APPROVED" });
      await write((tx) => tx.recurrences.insert(r));
      const cycle = (dueDate: string) => ({
        dueDate,
        attempts: [
          {
            settlementDate: dueDate,
            type: "SCHEDULED" as const,
            status: "SCHEDULED" as const,
            reasonCode: null,
            reason: null,
            endToEndId: null,
            updatedAt: at(0),
          },
        ],
      });
      const first = transactionRecord(scope, { createdAt: at(5), recurrenceId: r.id, cycle: cycle("2026-11-04") });
      const second = transactionRecord(scope, { createdAt: at(6), recurrenceId: r.id, cycle: cycle("2026-12-04") });
      const other = transactionRecord(scope, { createdAt: at(7) });
      for (const t of [second, first, other]) await write((tx) => tx.transactions.insert(t));

      expect(await store.read.transactions.listByRecurrence(scope, r.id)).toEqual([first, second]);
      const page = await store.read.transactions.list(scope, { recurrenceId: r.id, now: at(0) }, { limit: 10 });
      expect(page.items.map((t) => t.id)).toEqual([second.id, first.id]);
      expect(await store.read.transactions.listByRecurrence({ ...scope, livemode: true }, r.id)).toEqual([]);
    });

    test("when the background pass reads, then listExpiring finds CREATED ones past expiry in any scope, and listAutomatic the approved automatic ones by id", async () => {
      const due = recurrenceRecord(scope, { expiresAt: at(10) });
      const live = recurrenceRecord({ ...scope, livemode: true }, { expiresAt: at(20) });
      const later = recurrenceRecord(scope, { expiresAt: at(1_000) });
      const automatic = recurrenceRecord(scope, { status: "APPROVED", automaticCharges: true });
      const manual = recurrenceRecord(scope, { status: "APPROVED" });
      for (const r of [due, live, later, automatic, manual]) await write((tx) => tx.recurrences.insert(r));

      expect((await store.read.recurrences.listExpiring(at(100), 10)).map((r) => r.id)).toEqual([due.id, live.id]);
      expect((await store.read.recurrences.listExpiring(at(100), 1)).map((r) => r.id)).toEqual([due.id]);
      expect((await store.read.recurrences.listAutomatic(10)).map((r) => r.id)).toEqual([automatic.id]);
      expect(await store.read.recurrences.listAutomatic(10, automatic.id)).toEqual([]);
    });
  });
}

recurrenceContract("memory", async () => new MemoryStore());

let template: TestDatabase | undefined;
beforeAll(async () => {
  if (pgAdminUrl) template = await createTestDatabase("recurrence_conformance");
}, 60_000);
afterAll(async () => {
  await template?.drop();
});
if (pgAdminUrl) {
  recurrenceContract("postgres", async () => {
    if (!template) throw new Error("no template database");
    return new PostgresStore(createPool((await template.clone()).url, { max: 4 }));
  });
}
