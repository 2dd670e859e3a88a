import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { newId } from "../../src/domain/core/ids.js";
import type {
  Account,
  ApiKeyRecord,
  CustomerRecord,
  DeliveryRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntry,
  PaymentLinkRecord,
  RefundRecord,
  Scope,
  TransactionRecord,
  WebhookEndpointRecord,
  WithdrawalRecord,
} from "../../src/domain/core/model.js";
import { type Store, type StoreTx, UnknownCursorError } from "../../src/domain/ports/store.js";
import type { NoticeRecord } from "../../src/domain/ports/notice-store.js";

// The one store conformance suite (STYLE.md): every adapter must pass it unchanged. Records are
// written and read through the port only; each test gets a store of its own from `makeStore`.

const T0 = "2026-10-04T15:30:00.000Z";
/** T0 plus `seconds`, as the domain writes instants. */
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

export function accountRecord(overrides: Partial<Account> = {}): Account {
  return {
    id: newId("acc"),
    name: "Loja Exemplo Ltda",
    ownerEmail: "dono@loja.example",
    verified: true,
    plan: { chargeFeeCents: 80, chargeFeeBps: 150, withdrawFeeCents: 90 },
    releasePeriodDays: 1,
    merchantCity: "SAO PAULO",
    pixKey: "0b7a0b9e-5a8c-4bd5-9d0b-6d9a4b3c2e1f",
    documentType: "CNPJ",
    document: "11222333000181",
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function apiKeyRecord(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = newId("key");
  return {
    id,
    accountId,
    name: "test",
    livemode: false,
    prefix: "svc_test_AbCd",
    digest: `digest-${id}`,
    permissions: ["charges:write", "balance:read"],
    allowedIps: ["203.0.113.0/24", "2001:db8::1"],
    dailyWithdrawLimitCents: 500_000,
    revokedAt: null,
    previousDigest: null,
    previousPrefix: null,
    previousExpiresAt: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function customerRecord(scope: Scope, overrides: Partial<CustomerRecord> = {}): CustomerRecord {
  return {
    id: newId("cus"),
    ...scope,
    name: "Maria da Silva Santos",
    email: "maria.santos@example.com.br",
    phone: "11987654321",
    documentType: "CPF",
    document: "52998224725",
    address: {
      zipCode: "01310100",
      street: "Avenida Paulista",
      number: "1578",
      complement: null,
      district: "Bela Vista",
      city: "São Paulo",
      state: "SP",
    },
    notes: null,
    tags: ["vip"],
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function transactionRecord(scope: Scope, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    id: newId("txn"),
    ...scope,
    status: "WAITING_PAYMENT",
    amountCents: 8990,
    feeCents: 80,
    description: "Pedido #1234 - Camiseta azul",
    brCode: "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406" + "89.905802BR",
    customer: {
      id: newId("cus"),
      name: "Maria da Silva Santos",
      email: "maria.santos@example.com.br",
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
    },
    paymentLinkId: null,
    dispute: null,
    refundedAmountCents: 0,
    recurrenceId: null,
    cycle: null,
    dueDateCharge: null,
    failureReason: null,
    metadata: { orderId: "1234", nota: "ação ✓" },
    expiresAt: at(86_400),
    paidAt: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function paymentLinkRecord(scope: Scope, overrides: Partial<PaymentLinkRecord> = {}): PaymentLinkRecord {
  return {
    id: newId("plk"),
    ...scope,
    amountCents: 4990,
    description: "Curso online",
    active: true,
    maxPayments: 10,
    paymentsCount: 0,
    askAddress: false,
    returnUrl: "https://loja.example/obrigado",
    metadata: null,
    expiresAt: at(30 * 86_400),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function withdrawalRecord(scope: Scope, overrides: Partial<WithdrawalRecord> = {}): WithdrawalRecord {
  return {
    id: newId("wdr"),
    ...scope,
    apiKeyId: null,
    status: "PAID",
    amountCents: 2500,
    feeCents: 80,
    paidAmountCents: 2420,
    returnedAmountCents: 0,
    pixKey: "maria.santos@example.com.br",
    pixKeyType: "EMAIL",
    transfers: [
      {
        id: newId("trf"),
        amountCents: 2420,
        status: "PAID",
        endToEndId: "E0000000020261004153012345678901",
        completedAt: at(0),
      },
    ],
    failureReason: null,
    payout: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function refundRecord(scope: Scope, transactionId: string, overrides: Partial<RefundRecord> = {}): RefundRecord {
  return {
    id: newId("rfd"),
    ...scope,
    transactionId,
    status: "PENDING",
    amountCents: 2990,
    reason: "Produto devolvido — ação ✓",
    endToEndId: null,
    failureReason: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function ledgerEntry(scope: Scope, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: newId("led"),
    ...scope,
    bucket: "available",
    amountCents: 1000,
    releaseAt: null,
    kind: "charge_paid",
    refId: newId("txn"),
    createdAt: at(0),
    ...overrides,
  };
}

function eventRecord(scope: Scope, overrides: Partial<EventRecord> = {}): EventRecord {
  const id = overrides.id ?? newId("evt");
  return {
    id,
    ...scope,
    type: "transaction.paid",
    payload: { id, type: "transaction.paid", livemode: scope.livemode, data: { object: { amountCents: 8990 } } },
    createdAt: at(0),
    ...overrides,
  };
}

function idempotencyRecord(scope: Scope, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return {
    ...scope,
    operation: "createPixCharge",
    key: "pedido-1234",
    requestHash: "a".repeat(64),
    responseStatus: 201,
    responseText: `{"id":"txn_1","amountCents":8990,"metadata":{"b":[1,2,{"a":null}],"a":"x"}}`,
    createdAt: at(0),
    ...overrides,
  };
}

function endpointRecord(scope: Scope, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: newId("we"),
    ...scope,
    url: "https://loja.example/webhooks/pix",
    events: ["transaction.paid", "withdrawal.paid"],
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    previousSecret: null,
    previousSecretExpiresAt: null,
    disabledAt: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function deliveryRecord(
  scope: Scope,
  eventId: string,
  endpointId: string,
  overrides: Partial<DeliveryRecord> = {},
): DeliveryRecord {
  return {
    id: newId("del"),
    eventId,
    eventType: "transaction.paid",
    endpointId,
    ...scope,
    status: "PENDING",
    attempts: [],
    testEvent: null,
    nextAttemptAt: at(0),
    lockedUntil: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

/**
 * The fields of an idempotency record. (The memory store also returns its internal row `id`; a
 * harmless extra the port does not promise, so the comparison is on the port's fields.)
 */
const idempotencyFields = (r: IdempotencyRecord | null) =>
  r && {
    accountId: r.accountId,
    livemode: r.livemode,
    operation: r.operation,
    key: r.key,
    requestHash: r.requestHash,
    responseStatus: r.responseStatus,
    responseText: r.responseText,
    createdAt: r.createdAt,
  };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ids = (items: { id: string }[]) => items.map((i) => i.id);
const sortedIds = (items: { id: string }[]) => ids(items).sort();

/**
 * Runs the port's contract against one adapter. `makeStore` gives a new, empty store for each
 * test; the suite closes it afterwards.
 */
export function describeStoreContract(name: string, makeStore: () => Promise<Store>) {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    const write = <T>(work: (tx: StoreTx) => Promise<T>) => store.transaction(work);

    /** An account with its test and production scopes. */
    async function seedAccount(overrides: Partial<Account> = {}) {
      const account = accountRecord(overrides);
      await write((tx) => tx.accounts.insert(account));
      return {
        account,
        test: { accountId: account.id, livemode: false } as Scope,
        live: { accountId: account.id, livemode: true } as Scope,
      };
    }

    describe("e-mail notices (the outbox)", () => {
      test("when notices are queued, claimed, sent and purged, then each is queued once, claimed once until its retry, and a sent one is never claimed", async () => {
        const notice = (id: string, dueAt: string): NoticeRecord => ({
          id,
          kind: "mail",
          accountId: "acc_notices",
          subjectId: "ntc_source",
          detail: { to: "maria@loja.example.com.br", subject: "Pagamento recebido", text: "Olá" },
          dueAt,
          attempts: 0,
          sentAt: null,
          createdAt: "2026-10-04T15:00:00.000Z",
        });
        const now = "2026-10-04T15:30:00.000Z";
        const retryAt = "2026-10-04T15:31:00.000Z";

        const first = await write((tx) => tx.notices.insertIfAbsent(notice("ntc_a", "2026-10-04T15:00:00.000Z")));
        const again = await write((tx) => tx.notices.insertIfAbsent(notice("ntc_a", "2026-10-04T15:00:00.000Z")));
        await write((tx) => tx.notices.insertManyIfAbsent([notice("ntc_b", now), notice("ntc_later", retryAt)]));
        const claimed = await write((tx) => tx.notices.claimDue(now, retryAt, 10));
        const claimedAgain = await write((tx) => tx.notices.claimDue(now, retryAt, 10));
        await write((tx) => tx.notices.markSent(["ntc_a", "ntc_ghost"], now));
        await write((tx) => tx.notices.markSent([], now));
        const atRetry = await write((tx) => tx.notices.claimDue(retryAt, "2026-10-04T15:32:00.000Z", 10));
        const purged = await write((tx) => tx.notices.purgeSentBefore(retryAt));

        expect([first, again]).toEqual([true, false]);
        expect(claimed.map((n) => [n.id, n.attempts, n.dueAt])).toEqual([
          ["ntc_a", 1, retryAt],
          ["ntc_b", 1, retryAt],
        ]);
        expect(claimed[0]?.detail).toEqual(notice("ntc_a", now).detail);
        expect(claimedAgain).toEqual([]);
        expect(atRetry.map((n) => [n.id, n.attempts]).sort()).toEqual([
          ["ntc_b", 2],
          ["ntc_later", 1],
        ]);
        expect(purged).toBe(1);
        expect(await store.read.notices.get("ntc_a")).toBeNull();
      });
    });

    describe("accounts", () => {
      test("when an account is inserted, then get returns it field for field, and an unknown id is null", async () => {
        const account = accountRecord({ releasePeriodDays: 0, verified: false, documentType: null, document: null });

        await write((tx) => tx.accounts.insert(account));

        expect(await store.read.accounts.get(account.id)).toEqual(account);
        expect(await store.read.accounts.get("acc_unknown")).toBeNull();
      });

      test("when an account is updated, then every field is replaced; updating a missing one throws", async () => {
        const { account } = await seedAccount();
        const updated: Account = {
          ...account,
          name: "Loja Nova",
          verified: false,
          plan: { chargeFeeCents: 0, chargeFeeBps: 99, withdrawFeeCents: 0 },
          documentType: "CPF",
          document: "52998224725",
          updatedAt: at(60),
        };

        await write((tx) => tx.accounts.update(updated));

        expect(await store.read.accounts.get(account.id)).toEqual(updated);
        await expect(write((tx) => tx.accounts.update(accountRecord()))).rejects.toThrow();
      });

      test("when accounts exist, then count counts them and list pages them newest first", async () => {
        const a = await seedAccount({ createdAt: at(1) });
        const b = await seedAccount({ createdAt: at(2) });
        const c = await seedAccount({ createdAt: at(3) });

        const first = await store.read.accounts.list({ limit: 2 });
        const second = await store.read.accounts.list({ limit: 2, startingAfter: first.items[1]?.id });

        expect(await store.read.accounts.count()).toBe(3);
        expect(ids(first.items)).toEqual([c.account.id, b.account.id]);
        expect(first.hasMore).toBe(true);
        expect(ids(second.items)).toEqual([a.account.id]);
        expect(second.hasMore).toBe(false);
      });
    });

    describe("API keys", () => {
      test("when keys are inserted, then get, getByDigest and listByAccount (newest first) find them", async () => {
        const { account } = await seedAccount();
        const other = await seedAccount();
        const older = apiKeyRecord(account.id, { createdAt: at(1), dailyWithdrawLimitCents: null });
        const newer = apiKeyRecord(account.id, { createdAt: at(2), livemode: true, allowedIps: [] });
        const foreign = apiKeyRecord(other.account.id);

        await write(async (tx) => {
          await tx.apiKeys.insert(older);
          await tx.apiKeys.insert(newer);
          await tx.apiKeys.insert(foreign);
        });

        expect(await store.read.apiKeys.get(older.id)).toEqual(older);
        expect(await store.read.apiKeys.getByDigest(newer.digest)).toEqual(newer);
        expect(await store.read.apiKeys.getByDigest("no-such-digest")).toBeNull();
        expect(await store.read.apiKeys.listByAccount(account.id)).toEqual([newer, older]);
      });

      test("when a key is read with its account, then both come back whole in one read", async () => {
        const { account } = await seedAccount();
        const key = apiKeyRecord(account.id, { allowedIps: ["203.0.113.0/24"], dailyWithdrawLimitCents: 5000 });
        await write((tx) => tx.apiKeys.insert(key));

        expect(await store.read.apiKeys.getByDigestWithAccount(key.digest)).toEqual({
          key,
          account,
          version: expect.any(String),
        });
        expect(await store.read.apiKeys.getByDigestWithAccount("no-such-digest")).toBeNull();
      });

      test("when nothing changes, then the key's version stays; when the key or its account is written, even with the same timestamps, then it changes", async () => {
        const { account } = await seedAccount();
        const key = apiKeyRecord(account.id);
        await write((tx) => tx.apiKeys.insert(key));
        const version = async () => (await store.read.apiKeys.getByDigestWithAccount(key.digest))?.version;
        const first = await version();

        const again = await version();
        await write((tx) => tx.apiKeys.update({ ...key, permissions: ["balance:read"] }));
        const afterKey = await version();
        await write((tx) => tx.accounts.update({ ...account, verified: !account.verified }));
        const afterAccount = await version();

        expect(again).toBe(first);
        expect(new Set([first, afterKey, afterAccount]).size).toBe(3);
      });

      test("when the first page is asked while the key is unchanged, then it is list's first page; once the key changed, it is empty", async () => {
        const { account, test: scope } = await seedAccount();
        const key = apiKeyRecord(account.id);
        await write((tx) => tx.apiKeys.insert(key));
        for (let i = 0; i < 3; i++)
          await write((tx) => tx.transactions.insert(transactionRecord(scope, { createdAt: at(i) })));
        const read = await store.read.apiKeys.getByDigestWithAccount(key.digest);
        if (!read) throw new Error("the key was inserted");
        const filter = { now: at(100) };
        const confirmed = { digest: key.digest, version: read.version };

        const unchanged = await store.read.transactions.listWhileKeyUnchanged(confirmed, scope, filter, 2);
        const listed = await store.read.transactions.list(scope, filter, { limit: 2 });
        await write((tx) => tx.apiKeys.update({ ...key, revokedAt: key.createdAt }));
        const changed = await store.read.transactions.listWhileKeyUnchanged(confirmed, scope, filter, 2);
        const unknown = await store.read.transactions.listWhileKeyUnchanged(
          { digest: "no-such-digest", version: read.version },
          scope,
          filter,
          2,
        );

        expect(unchanged).toEqual(listed);
        expect(unchanged.items).toHaveLength(2);
        expect(unchanged.hasMore).toBe(true);
        expect(changed).toEqual({ items: [], hasMore: false });
        expect(unknown).toEqual({ items: [], hasMore: false });
      });

      test("when a charge is read by id while the key is unchanged, then it is get's record; once the key changed, or for another scope, it is null", async () => {
        const { account, test: scope, live } = await seedAccount();
        const key = apiKeyRecord(account.id);
        await write((tx) => tx.apiKeys.insert(key));
        const charge = transactionRecord(scope, { createdAt: at(1) });
        await write((tx) => tx.transactions.insert(charge));
        const read = await store.read.apiKeys.getByDigestWithAccount(key.digest);
        if (!read) throw new Error("the key was inserted");
        const confirmed = { digest: key.digest, version: read.version };

        const unchanged = await store.read.transactions.getWhileKeyUnchanged(confirmed, scope, charge.id);
        const got = await store.read.transactions.get(scope, charge.id);
        const otherMode = await store.read.transactions.getWhileKeyUnchanged(confirmed, live, charge.id);
        const missing = await store.read.transactions.getWhileKeyUnchanged(confirmed, scope, "txn_nosuchcharge00000");
        await write((tx) => tx.accounts.update({ ...account, verified: !account.verified }));
        const changed = await store.read.transactions.getWhileKeyUnchanged(confirmed, scope, charge.id);
        const unknown = await store.read.transactions.getWhileKeyUnchanged(
          { digest: "no-such-digest", version: read.version },
          scope,
          charge.id,
        );

        expect(got).not.toBeNull();
        expect(unchanged).toEqual(got);
        expect(otherMode).toBeNull();
        expect(missing).toBeNull();
        expect(changed).toBeNull();
        expect(unknown).toBeNull();
      });

      test("when a key is rolled, then its secret before is found by getByPreviousDigestWithAccount, and its current one as before", async () => {
        const { account } = await seedAccount();
        const key = apiKeyRecord(account.id);
        await write((tx) => tx.apiKeys.insert(key));
        const rolled: ApiKeyRecord = {
          ...key,
          digest: `${key.digest}-rolled`,
          prefix: "svc_test_Zx98",
          previousDigest: key.digest,
          previousPrefix: key.prefix,
          previousExpiresAt: at(3600),
          updatedAt: at(10),
        };

        await write((tx) => tx.apiKeys.update(rolled));

        expect(await store.read.apiKeys.getByDigestWithAccount(rolled.digest)).toMatchObject({ key: rolled, account });
        expect(await store.read.apiKeys.getByDigestWithAccount(key.digest)).toBeNull();
        expect(await store.read.apiKeys.getByPreviousDigestWithAccount(key.digest)).toMatchObject({
          key: rolled,
          account,
          version: expect.any(String),
        });
        expect(await store.read.apiKeys.getByPreviousDigestWithAccount(rolled.digest)).toBeNull();
      });

      test("when keys of several scopes exist, then list pages one scope's keys newest first", async () => {
        const { account, test: scope, live } = await seedAccount();
        const other = await seedAccount();
        const keys = [0, 1, 2].map((i) => apiKeyRecord(account.id, { createdAt: at(i) }));
        const inLive = apiKeyRecord(account.id, { livemode: true, createdAt: at(5) });
        const foreign = apiKeyRecord(other.account.id, { createdAt: at(6) });
        await write(async (tx) => {
          for (const k of [...keys, inLive, foreign]) await tx.apiKeys.insert(k);
        });

        const p1 = await store.read.apiKeys.list(scope, { limit: 2 });
        const p2 = await store.read.apiKeys.list(scope, { limit: 2, startingAfter: p1.items[1]?.id });

        expect(ids(p1.items)).toEqual([keys[2]?.id, keys[1]?.id]);
        expect(p1.hasMore).toBe(true);
        expect(p2).toEqual({ items: [keys[0]], hasMore: false });
        expect(ids((await store.read.apiKeys.list(live, { limit: 10 })).items)).toEqual([inLive.id]);
        await expect(store.read.apiKeys.list(scope, { limit: 2, startingAfter: inLive.id })).rejects.toBeInstanceOf(
          UnknownCursorError,
        );
      });

      test("when a key's uses are recorded, then lastUses keeps the latest, and the key's version does not change", async () => {
        const { account } = await seedAccount();
        const used = apiKeyRecord(account.id);
        const unused = apiKeyRecord(account.id);
        await write(async (tx) => {
          await tx.apiKeys.insert(used);
          await tx.apiKeys.insert(unused);
        });
        const before = (await store.read.apiKeys.getByDigestWithAccount(used.digest))?.version;

        await store.recordKeyUse(used.id, at(60));
        await store.recordKeyUse(used.id, at(120));
        await store.recordKeyUse(used.id, at(90));
        const uses = await store.read.apiKeys.lastUses([used.id, unused.id, "key_unknown"]);

        expect([...uses.entries()]).toEqual([[used.id, at(120)]]);
        expect(await store.read.apiKeys.lastUses([])).toEqual(new Map());
        expect((await store.read.apiKeys.getByDigestWithAccount(used.digest))?.version).toBe(before);
      });

      test("when a key is revoked, then the update is read back", async () => {
        const { account } = await seedAccount();
        const key = apiKeyRecord(account.id);
        await write((tx) => tx.apiKeys.insert(key));
        const revoked = { ...key, revokedAt: at(10), permissions: [], updatedAt: at(10) };

        await write((tx) => tx.apiKeys.update(revoked));

        expect(await store.read.apiKeys.get(key.id)).toEqual(revoked);
      });
    });

    describe("customers", () => {
      test("when a customer is inserted, then it is found in its scope only, and by id in any mode", async () => {
        const { account, test: scope, live } = await seedAccount();
        const other = await seedAccount();
        const customer = customerRecord(scope);

        await write((tx) => tx.customers.insert(customer));

        expect(await store.read.customers.get(scope, customer.id)).toEqual(customer);
        expect(await store.read.customers.get(live, customer.id)).toBeNull();
        expect(await store.read.customers.get(other.test, customer.id)).toBeNull();
        expect(await store.read.customers.getById(customer.id)).toEqual(customer);
        expect(await store.read.customers.getByDocument(scope, customer.document)).toEqual(customer);
        expect(await store.read.customers.getByDocument(live, customer.document)).toBeNull();
        expect(account.id).toBe(customer.accountId);
      });

      test("when a second customer has the same document in the same scope, then the insert fails and the first stays", async () => {
        const { test: scope } = await seedAccount();
        const first = customerRecord(scope);
        await write((tx) => tx.customers.insert(first));

        const duplicate = write((tx) => tx.customers.insert(customerRecord(scope, { name: "Outra Pessoa" })));

        await expect(duplicate).rejects.toThrow();
        const all = await store.read.customers.list(scope, {}, { limit: 10 });
        expect(all.items).toEqual([first]);
      });

      test("when the same document is used in the other mode or another account, then each scope has its own customer", async () => {
        const { test: scope, live } = await seedAccount();
        const other = await seedAccount();
        const document = "11222333000181";

        await write(async (tx) => {
          await tx.customers.insert(customerRecord(scope, { document, documentType: "CNPJ" }));
          await tx.customers.insert(customerRecord(live, { document, documentType: "CNPJ" }));
          await tx.customers.insert(customerRecord(other.test, { document, documentType: "CNPJ" }));
        });

        for (const s of [scope, live, other.test]) {
          expect((await store.read.customers.getByDocument(s, document))?.accountId).toBe(s.accountId);
        }
      });

      test("when customers are listed with a document filter, then only that document's customer is returned", async () => {
        const { test: scope } = await seedAccount();
        const maria = customerRecord(scope, { createdAt: at(1) });
        const empresa = customerRecord(scope, { document: "11222333000181", documentType: "CNPJ", createdAt: at(2) });
        await write(async (tx) => {
          await tx.customers.insert(maria);
          await tx.customers.insert(empresa);
        });

        const filtered = await store.read.customers.list(scope, { document: empresa.document }, { limit: 10 });
        const all = await store.read.customers.list(scope, { document: undefined }, { limit: 10 });

        expect(filtered).toEqual({ items: [empresa], hasMore: false });
        expect(ids(all.items)).toEqual([empresa.id, maria.id]);
      });

      test("when a customer is updated, then the new fields are read back", async () => {
        const { test: scope } = await seedAccount();
        const customer = customerRecord(scope, { address: null, tags: [] });
        await write((tx) => tx.customers.insert(customer));
        const updated: CustomerRecord = {
          ...customer,
          name: "Maria S. Santos",
          email: null,
          address: {
            zipCode: null,
            street: null,
            number: null,
            complement: null,
            district: null,
            city: "Recife",
            state: "PE",
          },
          notes: "cliente antiga",
          tags: ["a", "b"],
          updatedAt: at(5),
        };

        await write((tx) => tx.customers.update(updated));

        expect(await store.read.customers.get(scope, customer.id)).toEqual(updated);
      });
    });

    describe("transactions", () => {
      test("when a charge is inserted and updated, then get and getById read it back exactly", async () => {
        const { test: scope, live } = await seedAccount();
        const charge = transactionRecord(scope, {
          amountCents: Number.MAX_SAFE_INTEGER,
          feeCents: 123_456_789_012,
          createdAt: "2026-10-04T15:30:00.123Z",
        });
        await write((tx) => tx.transactions.insert(charge));
        const paid: TransactionRecord = {
          ...charge,
          status: "PAID",
          paidAt: "2026-10-04T15:31:00.999Z",
          updatedAt: at(60),
        };

        await write((tx) => tx.transactions.update(paid));

        expect(await store.read.transactions.get(scope, charge.id)).toEqual(paid);
        expect(await store.read.transactions.get(live, charge.id)).toBeNull();
        expect(await store.read.transactions.getById(charge.id)).toEqual(paid);
        expect(await store.read.transactions.getById("txn_unknown")).toBeNull();
      });

      test("when a charge has a dispute, then getByDisputeId finds it", async () => {
        const { test: scope } = await seedAccount();
        const dispute = { id: newId("dsp"), status: "OPEN" as const, amountCents: 1000, createdAt: at(5) };
        const charge = transactionRecord(scope, { status: "PAID", paidAt: at(1), dispute });
        await write(async (tx) => {
          await tx.transactions.insert(transactionRecord(scope));
          await tx.transactions.insert(charge);
        });

        expect(await store.read.transactions.getByDisputeId(dispute.id)).toEqual(charge);
        expect(await store.read.transactions.getByDisputeId("dsp_unknown")).toBeNull();
      });

      test.each([
        { name: "PAID matches stored PAID only", status: "PAID", expected: ["paid"] },
        { name: "EXPIRED includes WAITING_PAYMENT past expiresAt", status: "EXPIRED", expected: ["stored", "past"] },
        { name: "WAITING_PAYMENT excludes the ones past expiresAt", status: "WAITING_PAYMENT", expected: ["open"] },
        { name: "CANCELLED matches CANCELLED", status: "CANCELLED", expected: ["cancelled"] },
        { name: "no status matches all", status: undefined, expected: ["cancelled", "paid", "stored", "past", "open"] },
      ])(
        "when transactions are filtered by status ($name), then the set is as the client sees it",
        async ({ status, expected }) => {
          const { test: scope } = await seedAccount();
          const now = at(1000);
          const records = {
            open: transactionRecord(scope, { createdAt: at(1), expiresAt: at(1001) }),
            past: transactionRecord(scope, { createdAt: at(2), expiresAt: at(999) }),
            stored: transactionRecord(scope, { createdAt: at(3), status: "EXPIRED", expiresAt: at(500) }),
            paid: transactionRecord(scope, { createdAt: at(4), status: "PAID", paidAt: at(4) }),
            cancelled: transactionRecord(scope, { createdAt: at(5), status: "CANCELLED" }),
          };
          await write(async (tx) => {
            for (const record of Object.values(records)) await tx.transactions.insert(record);
          });

          const page = await store.read.transactions.list(scope, { status, now }, { limit: 10 });

          expect(ids(page.items)).toEqual(expected.map((key) => records[key as keyof typeof records].id));
        },
      );

      test("when a WAITING_PAYMENT charge's expiresAt equals now, then it is EXPIRED, not WAITING_PAYMENT", async () => {
        const { test: scope } = await seedAccount();
        const charge = transactionRecord(scope, { expiresAt: at(100) });
        await write((tx) => tx.transactions.insert(charge));

        const expired = await store.read.transactions.list(scope, { status: "EXPIRED", now: at(100) }, { limit: 5 });
        const waiting = await store.read.transactions.list(
          scope,
          { status: "WAITING_PAYMENT", now: at(100) },
          {
            limit: 5,
          },
        );

        expect(ids(expired.items)).toEqual([charge.id]);
        expect(waiting.items).toEqual([]);
      });

      test("when transactions are filtered by payment link and by a [createdFrom, createdTo) window, then both bounds hold", async () => {
        const { test: scope } = await seedAccount();
        const link = paymentLinkRecord(scope);
        const t1 = transactionRecord(scope, { createdAt: at(10), paymentLinkId: link.id });
        const t2 = transactionRecord(scope, { createdAt: at(20) });
        const t3 = transactionRecord(scope, { createdAt: at(30), paymentLinkId: link.id });
        await write(async (tx) => {
          await tx.paymentLinks.insert(link);
          for (const t of [t1, t2, t3]) await tx.transactions.insert(t);
        });
        const list = (filter: Record<string, string>) =>
          store.read.transactions.list(scope, { now: at(0), ...filter }, { limit: 10 });

        expect(ids((await list({ paymentLinkId: link.id })).items)).toEqual([t3.id, t1.id]);
        expect(ids((await list({ createdFrom: at(10), createdTo: at(30) })).items)).toEqual([t2.id, t1.id]);
        expect(ids((await list({ createdFrom: at(11) })).items)).toEqual([t3.id, t2.id]);
        expect(ids((await list({ createdTo: at(10) })).items)).toEqual([]);
      });
    });

    describe("pagination (every list: newest first on createdAt, then id)", () => {
      test("when items are paged with limit 2, then the pages cover every item once with hasMore until the last", async () => {
        const { test: scope } = await seedAccount();
        const made: TransactionRecord[] = [];
        for (let i = 1; i <= 5; i++) made.push(transactionRecord(scope, { createdAt: at(i) }));
        await write(async (tx) => {
          for (const t of made) await tx.transactions.insert(t);
        });
        const list = (startingAfter?: string) =>
          store.read.transactions.list(scope, { now: at(0) }, { limit: 2, startingAfter });

        const p1 = await list();
        const p2 = await list(p1.items[1]?.id);
        const p3 = await list(p2.items[1]?.id);

        const newestFirst = ids(made).reverse();
        expect([ids(p1.items), p1.hasMore]).toEqual([newestFirst.slice(0, 2), true]);
        expect([ids(p2.items), p2.hasMore]).toEqual([newestFirst.slice(2, 4), true]);
        expect([ids(p3.items), p3.hasMore]).toEqual([newestFirst.slice(4), false]);
      });

      test("when the last page is exactly full, then hasMore is false", async () => {
        const { test: scope } = await seedAccount();
        await write(async (tx) => {
          for (let i = 1; i <= 4; i++) await tx.withdrawals.insert(withdrawalRecord(scope, { createdAt: at(i) }));
        });

        const p1 = await store.read.withdrawals.list(scope, { limit: 2 });
        const p2 = await store.read.withdrawals.list(scope, { limit: 2, startingAfter: p1.items[1]?.id });

        expect(p1.hasMore).toBe(true);
        expect(p2.items).toHaveLength(2);
        expect(p2.hasMore).toBe(false);
      });

      test("when items share createdAt, then ids break the tie in code-unit order (uppercase before lowercase)", async () => {
        const { test: scope } = await seedAccount();
        const names = ["txn_a1", "txn_B2", "txn_b1", "txn_A9", "txn_Z0", "txn_0z"];
        await write(async (tx) => {
          for (const id of names) await tx.transactions.insert(transactionRecord(scope, { id, createdAt: at(7) }));
        });

        const all: string[] = [];
        let cursor: string | undefined;
        for (let guard = 0; guard < 10; guard++) {
          const page = await store.read.transactions.list(scope, { now: at(0) }, { limit: 2, startingAfter: cursor });
          all.push(...ids(page.items));
          if (!page.hasMore) break;
          cursor = page.items.at(-1)?.id;
        }

        expect(all).toEqual([...names].sort().reverse());
      });

      test("when the cursor names no item of the list's scope, then UnknownCursorError (unknown id, other mode, other account); one the filter leaves out still marks the place", async () => {
        const { test: scope, live } = await seedAccount();
        const other = await seedAccount();
        const own = transactionRecord(scope, { status: "PAID", paidAt: at(1) });
        const inLive = transactionRecord(live);
        const foreign = transactionRecord(other.test);
        await write(async (tx) => {
          for (const t of [own, inLive, foreign]) await tx.transactions.insert(t);
        });
        const list = (startingAfter: string, status?: string) =>
          store.read.transactions.list(scope, { now: at(0), status }, { limit: 5, startingAfter });

        await expect(list("txn_doesNotExist")).rejects.toBeInstanceOf(UnknownCursorError);
        await expect(list(inLive.id)).rejects.toBeInstanceOf(UnknownCursorError);
        await expect(list(foreign.id)).rejects.toBeInstanceOf(UnknownCursorError);
        await expect(list(own.id, "WAITING_PAYMENT")).resolves.toEqual({ items: [], hasMore: false });
        await expect(store.read.customers.list(scope, {}, { limit: 5, startingAfter: own.id })).rejects.toBeInstanceOf(
          UnknownCursorError,
        );
        await expect(list(own.id)).resolves.toEqual({ items: [], hasMore: false });
      });

      test("when items arrive during a traversal, then newer ones do not shift later pages and older ones are reached", async () => {
        const { test: scope } = await seedAccount();
        const made: CustomerRecord[] = [];
        for (let i = 1; i <= 4; i++) {
          made.push(customerRecord(scope, { document: `0000000000${i}`, createdAt: at(i * 10) }));
        }
        await write(async (tx) => {
          for (const c of made) await tx.customers.insert(c);
        });
        const p1 = await store.read.customers.list(scope, {}, { limit: 2 });
        const newest = customerRecord(scope, { document: "99999999999", createdAt: at(100) });
        const oldest = customerRecord(scope, { document: "88888888888", createdAt: at(1) });
        await write(async (tx) => {
          await tx.customers.insert(newest);
          await tx.customers.insert(oldest);
        });

        const p2 = await store.read.customers.list(scope, {}, { limit: 2, startingAfter: p1.items[1]?.id });
        const p3 = await store.read.customers.list(scope, {}, { limit: 2, startingAfter: p2.items[1]?.id });

        expect(ids(p1.items)).toEqual([made[3]?.id, made[2]?.id]);
        expect(ids(p2.items)).toEqual([made[1]?.id, made[0]?.id]);
        expect(p2.hasMore).toBe(true);
        expect(ids(p3.items)).toEqual([oldest.id]);
        expect(p3.hasMore).toBe(false);
      });
    });

    describe("payment links", () => {
      test("when links are inserted and one is deactivated, then get, getById and the active filter agree", async () => {
        const { test: scope, live } = await seedAccount();
        const open = paymentLinkRecord(scope, { createdAt: at(1), metadata: { campanha: "natal" } });
        const closed = paymentLinkRecord(scope, { createdAt: at(2), maxPayments: null, expiresAt: null });
        await write(async (tx) => {
          await tx.paymentLinks.insert(open);
          await tx.paymentLinks.insert(closed);
        });
        const deactivated = { ...closed, active: false, paymentsCount: 3, updatedAt: at(9) };

        await write((tx) => tx.paymentLinks.update(deactivated));

        expect(await store.read.paymentLinks.get(scope, open.id)).toEqual(open);
        expect(await store.read.paymentLinks.get(live, open.id)).toBeNull();
        expect(await store.read.paymentLinks.getById(closed.id)).toEqual(deactivated);
        expect(ids((await store.read.paymentLinks.list(scope, { active: true }, { limit: 5 })).items)).toEqual([
          open.id,
        ]);
        expect(ids((await store.read.paymentLinks.list(scope, { active: false }, { limit: 5 })).items)).toEqual([
          closed.id,
        ]);
        expect(ids((await store.read.paymentLinks.list(scope, {}, { limit: 5 })).items)).toEqual([closed.id, open.id]);
      });
    });

    describe("withdrawals", () => {
      test("when a withdrawal is inserted and settled, then get, getById and list read it back", async () => {
        const { account, test: scope, live } = await seedAccount();
        const key = apiKeyRecord(account.id);
        const withdrawal = withdrawalRecord(scope, { apiKeyId: key.id, status: "PENDING", paidAmountCents: 0 });
        await write(async (tx) => {
          await tx.apiKeys.insert(key);
          await tx.withdrawals.insert(withdrawal);
        });
        const settled: WithdrawalRecord = {
          ...withdrawal,
          status: "PARTIALLY_PAID",
          paidAmountCents: 1000,
          returnedAmountCents: 1420,
          transfers: [
            { id: newId("trf"), amountCents: 1000, status: "PAID", endToEndId: "E1", completedAt: at(5) },
            { id: newId("trf"), amountCents: 1420, status: "FAILED", endToEndId: null, completedAt: null },
          ],
          failureReason: "conta destino encerrada",
          updatedAt: at(5),
        };

        await write((tx) => tx.withdrawals.update(settled));

        expect(await store.read.withdrawals.get(scope, withdrawal.id)).toEqual(settled);
        expect(await store.read.withdrawals.get(live, withdrawal.id)).toBeNull();
        expect(await store.read.withdrawals.getById(withdrawal.id)).toEqual(settled);
        expect(await store.read.withdrawals.list(scope, { limit: 5 })).toEqual({ items: [settled], hasMore: false });
      });

      test("when pending withdrawals at the bank are looked up by transfer ids, then only the pending ones paid out through the bank that hold one come, by id", async () => {
        const { test: scope, live } = await seedAccount();
        const pendingTransfer = (id = newId("trf")) => ({
          id,
          amountCents: 1000,
          status: "PENDING" as const,
          endToEndId: null,
          completedAt: null,
          failureReason: null,
          bankReference: null,
          sentAt: at(1),
        });
        const atBank = { waitingForBalanceSince: null, bankAvailableCents: null };
        const pendingAt = (
          s: Scope,
          transfers: ReturnType<typeof pendingTransfer>[],
          payout: typeof atBank | null = atBank,
        ) =>
          withdrawalRecord(s, {
            status: "PENDING",
            paidAmountCents: 0,
            amountCents: 1080 * transfers.length,
            transfers,
            payout,
          });
        const [a1, a2, b1, c1, d1] = [0, 1, 2, 3, 4].map(() => pendingTransfer());
        const two = pendingAt(live, [a1!, a2!]);
        const other = pendingAt(scope, [b1!]);
        const acquirers = pendingAt(live, [c1!], null); // not paid out through the bank
        const ended = withdrawalRecord(live, {
          transfers: [{ ...d1!, status: "PAID", endToEndId: "E1", completedAt: at(2) }],
        });
        await write(async (tx) => {
          for (const w of [two, other, acquirers, ended]) await tx.withdrawals.insert(w);
        });
        const found = (ids: string[]) =>
          store.read.withdrawals.listPendingAtBankByTransfers(ids).then((ws) => ws.map((w) => w.id));
        expect(await found([a2!.id])).toEqual([two.id]);
        expect(await found([a1!.id, a2!.id, b1!.id])).toEqual([two.id, other.id].sort());
        expect(await found([c1!.id, d1!.id, "trf_ghost"])).toEqual([]);
        expect(await found([])).toEqual([]);
        expect((await store.read.withdrawals.listPendingAtBankByTransfers([b1!.id]))[0]).toEqual(other);
        expect((await store.read.withdrawals.listPendingAtBank(10)).map((w) => w.id)).toEqual(
          [two.id, other.id].sort(),
        );

        // A rolled-back end leaves it listed; a rolled-back insert lists nothing; a committed end unlists it.
        const refused = new Error("refused");
        await expect(
          write(async (tx) => {
            await tx.withdrawals.update({ ...two, status: "PAID", paidAmountCents: two.amountCents - two.feeCents });
            throw refused;
          }),
        ).rejects.toBe(refused);
        await expect(
          write(async (tx) => {
            await tx.withdrawals.insert(pendingAt(live, [pendingTransfer()]));
            throw refused;
          }),
        ).rejects.toBe(refused);
        expect((await store.read.withdrawals.listPendingAtBank(10)).map((w) => w.id)).toEqual(
          [two.id, other.id].sort(),
        );
        await write((tx) =>
          tx.withdrawals.update({ ...other, status: "FAILED", returnedAmountCents: other.amountCents }),
        );
        expect((await store.read.withdrawals.listPendingAtBank(10)).map((w) => w.id)).toEqual([two.id]);
        expect(await found([b1!.id])).toEqual([]);
      });

      test("when sumForKey is asked for [from, to), then it sums amount minus returned of that key in that window", async () => {
        const { account, test: scope } = await seedAccount();
        const key = apiKeyRecord(account.id);
        const otherKey = apiKeyRecord(account.id);
        const w = (createdAt: string, amountCents: number, returnedAmountCents = 0, apiKeyId = key.id) =>
          withdrawalRecord(scope, {
            apiKeyId,
            createdAt,
            amountCents,
            returnedAmountCents,
            paidAmountCents: amountCents - 80 - returnedAmountCents,
          });
        await write(async (tx) => {
          await tx.apiKeys.insert(key);
          await tx.apiKeys.insert(otherKey);
          await tx.withdrawals.insert(w(at(-1), 100_000)); // before the window
          await tx.withdrawals.insert(w(at(0), 1000)); // at from: counted
          await tx.withdrawals.insert(w(at(50), 5000, 2000)); // partly returned: 3000
          await tx.withdrawals.insert(w(at(60), 7000, 0, otherKey.id)); // another key
          await tx.withdrawals.insert(w(at(100), 9000)); // at to: not counted
        });

        expect(await store.read.withdrawals.sumForKey(key.id, at(0), at(100))).toBe(4000);
        expect(await store.read.withdrawals.sumForKey(key.id, at(0), at(101))).toBe(13_000);
        expect(await store.read.withdrawals.sumForKey(otherKey.id, at(0), at(100))).toBe(7000);
        expect(await store.read.withdrawals.sumForKey("key_none", at(0), at(100))).toBe(0);
      });
    });

    describe("refunds", () => {
      test("when a refund is inserted and settled, then get, getById and the charge's list read it back", async () => {
        const { test: scope, live } = await seedAccount();
        const charge = transactionRecord(scope, { status: "PAID", paidAt: at(0), refundedAmountCents: 2990 });
        const refund = refundRecord(scope, charge.id);
        await write(async (tx) => {
          await tx.transactions.insert(charge);
          await tx.refunds.insert(refund);
        });
        const completed: RefundRecord = {
          ...refund,
          status: "COMPLETED",
          endToEndId: "D0000000020261004153012345678901",
          updatedAt: at(5),
        };

        await write((tx) => tx.refunds.update(completed));

        expect(await store.read.refunds.get(scope, refund.id)).toEqual(completed);
        expect(await store.read.refunds.get(live, refund.id)).toBeNull();
        expect(await store.read.refunds.getById(refund.id)).toEqual(completed);
        expect(await store.read.refunds.getById("rfd_unknown")).toBeNull();
        expect(await store.read.refunds.listByTransaction(scope, charge.id, { limit: 5 })).toEqual({
          items: [completed],
          hasMore: false,
        });
        expect((await store.read.transactions.get(scope, charge.id))?.refundedAmountCents).toBe(2990);
      });

      test("when a charge has several refunds, then its list pages newest first and holds only its own", async () => {
        const { test: scope, live } = await seedAccount();
        const charge = transactionRecord(scope, { status: "PAID", paidAt: at(0) });
        const other = transactionRecord(scope, { status: "PAID", paidAt: at(0) });
        const refunds = [0, 1, 2].map((i) =>
          refundRecord(scope, charge.id, { amountCents: 100 + i, reason: null, createdAt: at(i) }),
        );
        const elsewhere = refundRecord(scope, other.id, { createdAt: at(9) });
        await write(async (tx) => {
          await tx.transactions.insert(charge);
          await tx.transactions.insert(other);
          for (const r of [...refunds, elsewhere]) await tx.refunds.insert(r);
        });

        const first = await store.read.refunds.listByTransaction(scope, charge.id, { limit: 2 });
        const rest = await store.read.refunds.listByTransaction(scope, charge.id, {
          limit: 2,
          startingAfter: refunds[1]?.id,
        });

        expect(first).toEqual({ items: [refunds[2], refunds[1]], hasMore: true });
        expect(rest).toEqual({ items: [refunds[0]], hasMore: false });
        expect((await store.read.refunds.listByTransaction(live, charge.id, { limit: 5 })).items).toEqual([]);
        await expect(
          store.read.refunds.listByTransaction(scope, charge.id, { limit: 2, startingAfter: elsewhere.id }),
        ).rejects.toThrow(UnknownCursorError);
      });

      test("when a refund write fails later in the transaction, then neither it nor the charge's total stays", async () => {
        const { test: scope } = await seedAccount();
        const charge = transactionRecord(scope, { status: "PAID", paidAt: at(0) });
        await write((tx) => tx.transactions.insert(charge));
        const refund = refundRecord(scope, charge.id);

        await expect(
          write(async (tx) => {
            await tx.refunds.insert(refund);
            await tx.transactions.update({ ...charge, refundedAmountCents: refund.amountCents });
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");

        expect(await store.read.refunds.getById(refund.id)).toBeNull();
        expect((await store.read.transactions.get(scope, charge.id))?.refundedAmountCents).toBe(0);
      });
    });

    describe("ledger", () => {
      test("when entries are appended, then totals split available, pending (release ahead) and blocked at an instant", async () => {
        const { test: scope, live } = await seedAccount();
        const entries = [
          ledgerEntry(scope, { amountCents: 10_000, releaseAt: at(100) }),
          ledgerEntry(scope, { amountCents: 5000, releaseAt: null }),
          ledgerEntry(scope, { amountCents: 3000, releaseAt: at(50) }),
          ledgerEntry(scope, { amountCents: -1500, kind: "withdrawal" }),
          ledgerEntry(scope, { amountCents: -2000, kind: "dispute_opened" }),
          ledgerEntry(scope, { amountCents: 2000, bucket: "blocked", kind: "dispute_opened" }),
          ledgerEntry(live, { amountCents: 777 }),
        ];
        await write(async (tx) => {
          for (const e of entries) await tx.ledger.append(e);
        });

        const before = await store.read.ledger.totals(scope, at(49));
        const atRelease = await store.read.ledger.totals(scope, at(50));
        const after = await store.read.ledger.totals(scope, at(100));

        expect(before).toEqual({ availableCents: 1500, pendingCents: 13_000, blockedCents: 2000 });
        expect(atRelease).toEqual({ availableCents: 4500, pendingCents: 10_000, blockedCents: 2000 });
        expect(after).toEqual({ availableCents: 14_500, pendingCents: 0, blockedCents: 2000 });
        expect(await store.read.ledger.totals(live, at(0))).toEqual({
          availableCents: 777,
          pendingCents: 0,
          blockedCents: 0,
        });
        expect(await store.read.ledger.list(scope)).toEqual(entries.slice(0, 6));
      });

      test("when a scope has no entries, then its totals are zero and its list empty", async () => {
        const { test: scope } = await seedAccount();

        expect(await store.read.ledger.totals(scope, at(0))).toEqual({
          availableCents: 0,
          pendingCents: 0,
          blockedCents: 0,
        });
        expect(await store.read.ledger.list(scope)).toEqual([]);
      });

      test("when entries are read by reference or by release instant, then only the scope's entries of those references, or of that instant's available money, count", async () => {
        const { test: scope, live } = await seedAccount();
        const charge = newId("txn");
        const refund = newId("rfd");
        const entries = [
          ledgerEntry(scope, { amountCents: 8910, releaseAt: at(100), refId: charge }),
          ledgerEntry(scope, { amountCents: 5000, releaseAt: at(100) }),
          ledgerEntry(scope, { amountCents: -3000, releaseAt: at(100), kind: "refund", refId: refund }),
          ledgerEntry(scope, { amountCents: -80, kind: "refund", refId: refund }),
          ledgerEntry(scope, { amountCents: 700, releaseAt: at(200) }),
          ledgerEntry(scope, { amountCents: 400, bucket: "blocked", releaseAt: at(100), kind: "dispute_opened" }),
          ledgerEntry(live, { amountCents: 777, releaseAt: at(100), refId: charge }),
        ];
        await write(async (tx) => {
          for (const e of entries) await tx.ledger.append(e);
        });

        expect(await store.read.ledger.listByRefs(scope, [charge, refund])).toEqual([
          entries[0],
          entries[2],
          entries[3],
        ]);
        expect(await store.read.ledger.listByRefs(scope, [])).toEqual([]);
        expect(await store.read.ledger.sumReleasingAt(scope, at(100))).toBe(8910 + 5000 - 3000);
        expect(await store.read.ledger.sumReleasingAt(scope, at(150))).toBe(0);
        expect(await store.read.ledger.sumReleasingAt(live, at(100))).toBe(777);
      });

      test("when a period of the ledger is read, then it opens with the balance right before it, lists the entries created in it in order, and sums by instant the pending money released in it", async () => {
        const { test: scope, live } = await seedAccount();
        const dispute = newId("dsp");
        const [e0, e1, e2, e3, e4, e5, e6, e8, e7] = [
          ledgerEntry(scope, { amountCents: 5000 }),
          ledgerEntry(scope, { amountCents: 10_000, releaseAt: at(100) }),
          ledgerEntry(scope, {
            amountCents: 2000,
            bucket: "blocked",
            kind: "dispute_opened",
            refId: dispute,
            createdAt: at(10),
          }),
          ledgerEntry(scope, { amountCents: -2000, kind: "dispute_opened", refId: dispute, createdAt: at(10) }),
          ledgerEntry(scope, { amountCents: -1000, releaseAt: at(100), kind: "refund", createdAt: at(20) }),
          ledgerEntry(scope, { amountCents: 500, releaseAt: at(50), createdAt: at(30) }),
          ledgerEntry(scope, { amountCents: -300, kind: "withdrawal", createdAt: at(60) }),
          // Released as it was made (release period 0): never pending, never a release.
          ledgerEntry(scope, { amountCents: 400, releaseAt: at(100), createdAt: at(100) }),
          ledgerEntry(scope, { amountCents: 700, releaseAt: at(200), createdAt: at(120) }),
        ];
        await write(async (tx) => {
          for (const e of [e0, e1, e2, e3, e4, e5, e6, e8, e7]) await tx.ledger.append(e as LedgerEntry);
          await tx.ledger.append(ledgerEntry(live, { amountCents: 777, releaseAt: at(50), createdAt: at(10) }));
        });

        const first = await store.read.ledger.period(scope, at(20), at(100));
        const second = await store.read.ledger.period(scope, at(100), at(300));
        const empty = await store.read.ledger.period(scope, at(300), at(400));

        expect(first).toEqual({
          opening: { availableCents: 3000, pendingCents: 10_000, blockedCents: 2000 },
          entries: [e4, e5, e6],
          releases: [{ releaseAt: at(50), amountCents: 500 }],
        });
        // At 100 the charge's credit less its refund's pending part is released; the entry made at
        // 100 was never pending.
        expect(second).toEqual({
          opening: { availableCents: 3200, pendingCents: 9000, blockedCents: 2000 },
          entries: [e8, e7],
          releases: [
            { releaseAt: at(100), amountCents: 9000 },
            { releaseAt: at(200), amountCents: 700 },
          ],
        });
        expect(empty).toEqual({
          opening: { availableCents: 13_300, pendingCents: 0, blockedCents: 2000 },
          entries: [],
          releases: [],
        });
      });
    });

    describe("events", () => {
      test("when events are appended, then list gives them in order per scope and get finds one by id", async () => {
        const { test: scope, live } = await seedAccount();
        const first = eventRecord(scope, { createdAt: at(2) });
        const second = eventRecord(scope, { type: "withdrawal.created", createdAt: at(1) });
        const inLive = eventRecord(live);
        await write(async (tx) => {
          await tx.events.append(first);
          await tx.events.append(inLive);
          await tx.events.append(second);
        });

        expect(await store.read.events.list(scope)).toEqual([first, second]);
        expect(await store.read.events.list(live)).toEqual([inLive]);
        expect(await store.read.events.get(second.id)).toEqual(second);
        expect(await store.read.events.get("evt_unknown")).toBeNull();
        const many = await store.read.events.getMany([second.id, "evt_unknown", inLive.id, second.id]);
        expect(many.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
          [second, inLive].sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
        expect(await store.read.events.getMany([])).toEqual([]);
      });

      test("when events are paged, then newest first with a cursor confined to the scope", async () => {
        const { test: scope, live } = await seedAccount();
        const events = [0, 1, 2].map((i) => eventRecord(scope, { createdAt: at(i) }));
        const inLive = eventRecord(live, { createdAt: at(5) });
        await write(async (tx) => {
          for (const e of [...events, inLive]) await tx.events.append(e);
        });

        const first = await store.read.events.listPage(scope, { limit: 2 });
        expect(first.items.map((e) => e.id)).toEqual([events[2]?.id, events[1]?.id]);
        expect(first.hasMore).toBe(true);
        const rest = await store.read.events.listPage(scope, { limit: 2, startingAfter: events[1]?.id });
        expect(rest).toEqual({ items: [events[0]], hasMore: false });
        await expect(store.read.events.listPage(scope, { limit: 2, startingAfter: inLive.id })).rejects.toThrow(
          UnknownCursorError,
        );
      });

      test("when events are paged with a filter, then only that kind in [createdFrom, createdTo) comes, after a cursor of any kind", async () => {
        const { test: scope } = await seedAccount();
        const paid = [0, 10, 20].map((i) => eventRecord(scope, { createdAt: at(i) }));
        const refunded = [5, 15].map((i) => eventRecord(scope, { type: "refund.completed", createdAt: at(i) }));
        await write(async (tx) => {
          for (const e of [...paid, ...refunded]) await tx.events.append(e);
        });

        const byType = await store.read.events.listPage(scope, { limit: 10 }, { type: "refund.completed" });
        const byWindow = await store.read.events.listPage(
          scope,
          { limit: 10 },
          { createdFrom: at(5), createdTo: at(20) },
        );
        const both = await store.read.events.listPage(
          scope,
          { limit: 1 },
          { type: "transaction.paid", createdFrom: at(0), createdTo: at(20) },
        );
        const next = await store.read.events.listPage(
          scope,
          { limit: 1, startingAfter: paid[1]?.id },
          { type: "transaction.paid", createdFrom: at(0), createdTo: at(20) },
        );

        expect(byType.items).toEqual([refunded[1], refunded[0]]);
        expect(byWindow.items).toEqual([refunded[1], paid[1], refunded[0]]);
        expect(both).toEqual({ items: [paid[1]], hasMore: true });
        expect(next).toEqual({ items: [paid[0]], hasMore: false });
        expect(
          await store.read.events.listPage(
            scope,
            { limit: 5, startingAfter: refunded[1]?.id },
            { type: "transaction.paid" },
          ),
        ).toEqual({ items: [paid[1], paid[0]], hasMore: false });
      });
    });

    describe("idempotency", () => {
      test("when a record is inserted, then get finds it by scope, operation and key only", async () => {
        const { test: scope, live } = await seedAccount();
        const record = idempotencyRecord(scope);

        await write((tx) => tx.idempotency.insert(record));

        expect(idempotencyFields(await store.read.idempotency.get(scope, record.operation, record.key))).toEqual(
          record,
        );
        expect(await store.read.idempotency.get(live, record.operation, record.key)).toBeNull();
        expect(await store.read.idempotency.get(scope, "createWithdrawal", record.key)).toBeNull();
        expect(await store.read.idempotency.get(scope, record.operation, "other")).toBeNull();
      });

      test("when a second record has the same scope, operation and key, then it fails and the first stays", async () => {
        const { test: scope, live } = await seedAccount();
        const record = idempotencyRecord(scope);
        await write((tx) => tx.idempotency.insert(record));

        const duplicate = write((tx) => tx.idempotency.insert({ ...record, requestHash: "b".repeat(64) }));

        await expect(duplicate).rejects.toThrow();
        expect(idempotencyFields(await store.read.idempotency.get(scope, record.operation, record.key))).toEqual(
          record,
        );
        await write(async (tx) => {
          await tx.idempotency.insert({ ...record, ...live });
          await tx.idempotency.insert({ ...record, operation: "createWithdrawal" });
        });
      });

      test("when a record is deleted, then the key can be recorded again", async () => {
        const { test: scope } = await seedAccount();
        const record = idempotencyRecord(scope);
        await write((tx) => tx.idempotency.insert(record));
        const renewed = { ...record, requestHash: "c".repeat(64), createdAt: at(90_000) };

        await write(async (tx) => {
          await tx.idempotency.delete(scope, record.operation, record.key);
          await tx.idempotency.insert(renewed);
        });

        expect(idempotencyFields(await store.read.idempotency.get(scope, record.operation, record.key))).toEqual(
          renewed,
        );
      });
    });

    describe("webhook endpoints", () => {
      test("when endpoints exist, then listForEvent gives the enabled ones of the scope that selected the type", async () => {
        const { account, test: scope, live } = await seedAccount();
        const paidOnly = endpointRecord(scope, { events: ["transaction.paid"], createdAt: at(1) });
        const withdrawalsOnly = endpointRecord(scope, { events: ["withdrawal.paid"], createdAt: at(2) });
        const disabled = endpointRecord(scope, { disabledAt: at(3), createdAt: at(3) });
        const inLive = endpointRecord(live, { createdAt: at(4) });
        const both = endpointRecord(scope, { createdAt: at(5) });
        await write(async (tx) => {
          for (const e of [paidOnly, withdrawalsOnly, disabled, inLive, both]) await tx.webhookEndpoints.insert(e);
        });

        const forPaid = await store.read.webhookEndpoints.listForEvent(scope, "transaction.paid");

        expect(sortedIds(forPaid)).toEqual([paidOnly.id, both.id].sort());
        expect(ids(await store.read.webhookEndpoints.listForEvent(live, "transaction.paid"))).toEqual([inLive.id]);
        expect(await store.read.webhookEndpoints.listForEvent(scope, "withdrawal.failed")).toEqual([]);
        expect(ids(await store.read.webhookEndpoints.listByAccount(account.id))).toEqual([
          both.id,
          inLive.id,
          disabled.id,
          withdrawalsOnly.id,
          paidOnly.id,
        ]);
      });

      test("when an event is appended listing its endpoints, then it is kept and the answer is listForEvent's for its type", async () => {
        const { test: scope, live } = await seedAccount();
        const later = endpointRecord(scope, { events: ["transaction.paid"], createdAt: at(2) });
        const earlier = endpointRecord(scope, { createdAt: at(1) });
        const otherType = endpointRecord(scope, { events: ["withdrawal.paid"], createdAt: at(3) });
        const disabled = endpointRecord(scope, { disabledAt: at(4), createdAt: at(4) });
        const inLive = endpointRecord(live, { createdAt: at(5) });
        await write(async (tx) => {
          for (const e of [later, earlier, otherType, disabled, inLive]) await tx.webhookEndpoints.insert(e);
        });
        const event = eventRecord(scope, { type: "transaction.paid", createdAt: at(6) });

        const listed = await write((tx) => tx.events.appendListingEndpoints(event));

        expect(sortedIds(listed)).toEqual([earlier.id, later.id].sort());
        expect(listed).toEqual(await store.read.webhookEndpoints.listForEvent(scope, "transaction.paid"));
        expect(await store.read.events.get(event.id)).toEqual(event);
        const none = eventRecord(scope, { type: "refund.completed", createdAt: at(7) });
        expect(await write((tx) => tx.events.appendListingEndpoints(none))).toEqual([]);
        expect(ids(await store.read.events.list(scope))).toEqual(expect.arrayContaining([event.id, none.id]));
      });

      test("when endpoints of several scopes exist, then list pages one scope's endpoints newest first", async () => {
        const { test: scope, live } = await seedAccount();
        const made = [0, 1, 2].map((i) => endpointRecord(scope, { createdAt: at(i) }));
        const inLive = endpointRecord(live, { createdAt: at(5) });
        await write(async (tx) => {
          for (const e of [...made, inLive]) await tx.webhookEndpoints.insert(e);
        });

        const p1 = await store.read.webhookEndpoints.list(scope, { limit: 2 });
        const p2 = await store.read.webhookEndpoints.list(scope, { limit: 2, startingAfter: p1.items[1]?.id });

        expect(ids(p1.items)).toEqual([made[2]?.id, made[1]?.id]);
        expect(p2).toEqual({ items: [made[0]], hasMore: false });
        expect(ids((await store.read.webhookEndpoints.list(live, { limit: 10 })).items)).toEqual([inLive.id]);
      });

      test("when every account's endpoints are walked with listAfter, then each comes once, in the ids' byte order, whatever their case", async () => {
        const { test: scope, live } = await seedAccount();
        const tag = newId("we").slice(3, 12);
        // Upper case sorts before lower case byte by byte ("C"), not beside it as a locale sorts.
        const made = ["B", "a", "A", "b"].map((c, i) =>
          endpointRecord(i % 2 ? live : scope, { id: `we_${tag}${c}${"0".repeat(10)}` }),
        );
        await write(async (tx) => {
          for (const e of made) await tx.webhookEndpoints.insert(e);
        });

        const walked: string[] = [];
        for (let after: string | null = null, page = 0; page < 1000; page++) {
          const items = await store.read.webhookEndpoints.listAfter(after, 2);
          walked.push(...ids(items));
          if (items.length < 2) break;
          after = items.at(-1)!.id;
        }

        expect(new Set(walked).size).toBe(walked.length);
        expect(walked).toEqual([...walked].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
        expect(walked.filter((id) => id.startsWith(`we_${tag}`))).toEqual(
          ["A", "B", "a", "b"].map((c) => `we_${tag}${c}${"0".repeat(10)}`),
        );
      });

      test("when an endpoint is updated and another deleted, then get reflects both", async () => {
        const { test: scope } = await seedAccount();
        const kept = endpointRecord(scope);
        const removed = endpointRecord(scope);
        await write(async (tx) => {
          await tx.webhookEndpoints.insert(kept);
          await tx.webhookEndpoints.insert(removed);
        });
        const rotated: WebhookEndpointRecord = {
          ...kept,
          secret: "whsec_new",
          previousSecret: kept.secret,
          previousSecretExpiresAt: at(86_400),
          events: ["withdrawal.failed"],
          updatedAt: at(10),
        };

        await write(async (tx) => {
          await tx.webhookEndpoints.update(rotated);
          await tx.webhookEndpoints.delete(removed.id);
          await tx.webhookEndpoints.delete("we_unknown");
        });

        expect(await store.read.webhookEndpoints.get(kept.id)).toEqual(rotated);
        expect(await store.read.webhookEndpoints.get(removed.id)).toBeNull();
      });
    });

    describe("deliveries", () => {
      async function seedDeliveries(count: number, overrides: (i: number) => Partial<DeliveryRecord> = () => ({})) {
        const { test: scope } = await seedAccount();
        const endpoint = endpointRecord(scope);
        const event = eventRecord(scope);
        const made = Array.from({ length: count }, (_v, i) =>
          deliveryRecord(scope, event.id, endpoint.id, { createdAt: at(i), ...overrides(i) }),
        );
        await write(async (tx) => {
          await tx.webhookEndpoints.insert(endpoint);
          await tx.events.append(event);
          for (const d of made) await tx.deliveries.insert(d);
        });
        return { scope, endpoint, event, made };
      }

      test("when a delivery records an attempt, then get and listByEndpoint (newest first, paged) read it back", async () => {
        const { endpoint, made } = await seedDeliveries(3);
        const first = made[0] as DeliveryRecord;
        const retried: DeliveryRecord = {
          ...first,
          attempts: [{ at: at(0), status: 500, durationMs: 120, error: null, responseBody: "indisponível ✓" }],
          nextAttemptAt: at(5),
          updatedAt: at(0),
        };

        await write((tx) => tx.deliveries.update(retried));
        const p1 = await store.read.deliveries.listByEndpoint(endpoint.id, { limit: 2 });
        const p2 = await store.read.deliveries.listByEndpoint(endpoint.id, {
          limit: 2,
          startingAfter: p1.items[1]?.id,
        });

        expect(await store.read.deliveries.get(first.id)).toEqual(retried);
        expect(ids(p1.items)).toEqual([made[2]?.id, made[1]?.id]);
        expect(p2).toEqual({ items: [retried], hasMore: false });
        await expect(
          store.read.deliveries.listByEndpoint("we_other", { limit: 2, startingAfter: first.id }),
        ).rejects.toBeInstanceOf(UnknownCursorError);
      });

      test("when a test event's delivery carries its envelope, then it is read back and claimed whole, with no event recorded", async () => {
        const { test: scope } = await seedAccount();
        const endpoint = endpointRecord(scope);
        const testEvent = { id: newId("evt"), type: "webhook.test", data: { object: { endpointId: endpoint.id } } };
        const delivery = deliveryRecord(scope, testEvent.id, endpoint.id, { eventType: "webhook.test", testEvent });
        await write(async (tx) => {
          await tx.webhookEndpoints.insert(endpoint);
          await tx.deliveries.insert(delivery);
        });

        const claimed = await write((tx) => tx.deliveries.claimDue(at(100), at(160), 10));

        expect(await store.read.deliveries.get(delivery.id)).toEqual({ ...delivery, lockedUntil: at(160) });
        expect(claimed).toEqual([{ ...delivery, lockedUntil: at(160) }]);
        expect(await store.read.events.get(testEvent.id)).toBeNull();
      });

      test("when deliveries are claimed, then only PENDING, due and unlocked ones come, oldest due first, locked until lockUntil", async () => {
        const { made } = await seedDeliveries(
          6,
          (i) =>
            [
              { nextAttemptAt: at(10) }, // due
              { nextAttemptAt: at(5) }, // due, earliest
              { nextAttemptAt: at(101) }, // not yet due
              { status: "SUCCEEDED", nextAttemptAt: null }, // done
              { nextAttemptAt: at(1), lockedUntil: at(200) }, // claimed by another worker
              { nextAttemptAt: at(20), lockedUntil: at(50) }, // an expired claim: due again
            ][i] as Partial<DeliveryRecord>,
        );

        const claimed = await write((tx) => tx.deliveries.claimDue(at(100), at(160), 10));
        const again = await write((tx) => tx.deliveries.claimDue(at(100), at(160), 10));
        const afterLock = await write((tx) => tx.deliveries.claimDue(at(160), at(220), 1));

        expect(ids(claimed)).toEqual([made[1]?.id, made[0]?.id, made[5]?.id]);
        expect(claimed.every((d) => d.lockedUntil === at(160))).toBe(true);
        expect((await store.read.deliveries.get(made[0]?.id as string))?.lockedUntil).toBe(at(160));
        expect(again).toEqual([]);
        expect(ids(afterLock)).toEqual([made[1]?.id]);
      });

      test("when two workers claim at once, then no delivery is handed to both", async () => {
        const { made } = await seedDeliveries(4, (i) => ({ nextAttemptAt: at(i) }));

        const claimHolding = (hold: number) =>
          write(async (tx) => {
            const got = await tx.deliveries.claimDue(at(100), at(400), 2);
            await sleep(hold);
            return got;
          });
        const [a, b] = await Promise.all([claimHolding(150), claimHolding(0)]);

        expect(a).toHaveLength(2);
        expect(b).toHaveLength(2);
        expect([...ids(a), ...ids(b)].sort()).toEqual(ids(made).sort());
      });
    });

    describe("transactions (all or nothing)", () => {
      test("when the work throws, then none of its writes remain and the error reaches the caller", async () => {
        const { account: existing, test: existingScope } = await seedAccount();
        const account = accountRecord();
        const scope = { accountId: account.id, livemode: false };
        const customer = customerRecord(scope);
        const charge = transactionRecord(scope);
        const failure = new Error("payment provider said no");
        const renamed = { ...existing, name: "Nome que não fica" };

        const outcome = write(async (tx) => {
          await tx.accounts.insert(account);
          await tx.accounts.update(renamed);
          await tx.customers.insert(customer);
          await tx.transactions.insert(charge);
          await tx.ledger.append(ledgerEntry(scope, { amountCents: 5000 }));
          await tx.ledger.append(ledgerEntry(existingScope, { amountCents: 5000 }));
          await tx.events.append(eventRecord(scope));
          await tx.idempotency.insert(idempotencyRecord(scope));
          throw failure;
        });

        await expect(outcome).rejects.toBe(failure);
        expect(await store.read.accounts.get(account.id)).toBeNull();
        expect(await store.read.accounts.get(existing.id)).toEqual(existing);
        expect(await store.read.customers.getById(customer.id)).toBeNull();
        expect(await store.read.transactions.getById(charge.id)).toBeNull();
        expect(await store.read.ledger.list(scope)).toEqual([]);
        expect(await store.read.ledger.totals(existingScope, at(0))).toEqual({
          availableCents: 0,
          pendingCents: 0,
          blockedCents: 0,
        });
        expect(await store.read.events.list(scope)).toEqual([]);
        expect(await store.read.idempotency.get(scope, "createPixCharge", "pedido-1234")).toBeNull();
        expect(await store.read.accounts.count()).toBe(1);
      });

      test("when a deletion happens in a failed transaction, then the deleted rows come back", async () => {
        const { test: scope } = await seedAccount();
        const endpoint = endpointRecord(scope);
        const record = idempotencyRecord(scope);
        await write(async (tx) => {
          await tx.webhookEndpoints.insert(endpoint);
          await tx.idempotency.insert(record);
        });

        const outcome = write(async (tx) => {
          await tx.webhookEndpoints.delete(endpoint.id);
          await tx.idempotency.delete(scope, record.operation, record.key);
          throw new Error("stop");
        });

        await expect(outcome).rejects.toThrow("stop");
        expect(await store.read.webhookEndpoints.get(endpoint.id)).toEqual(endpoint);
        expect(idempotencyFields(await store.read.idempotency.get(scope, record.operation, record.key))).toEqual(
          record,
        );
      });

      test("when the work returns, then transaction returns its value and the writes are visible to reads", async () => {
        const account = accountRecord();

        const value = await write(async (tx) => {
          await tx.accounts.insert(account);
          return { inserted: (await tx.accounts.get(account.id))?.id };
        });

        expect(value).toEqual({ inserted: account.id });
        expect(await store.read.accounts.get(account.id)).toEqual(account);
      });

      test("when concurrent transactions lock one scope, check the balance and debit it, then only one debit fits", async () => {
        const { test: scope, live } = await seedAccount();
        await write(async (tx) => {
          await tx.ledger.append(ledgerEntry(scope, { amountCents: 1000 }));
          await tx.ledger.append(ledgerEntry(live, { amountCents: 1000 }));
        });
        const debit = (s: Scope) =>
          write(async (tx) => {
            await tx.lockScope(s);
            const { availableCents } = await tx.ledger.totals(s, at(0));
            await sleep(20);
            if (availableCents < 800) return "refused";
            await tx.ledger.append(ledgerEntry(s, { amountCents: -800, kind: "withdrawal" }));
            return "debited";
          });

        const outcomes = await Promise.all([debit(scope), debit(scope), debit(scope), debit(live), debit(live)]);

        expect(outcomes.slice(0, 3).sort()).toEqual(["debited", "refused", "refused"]);
        expect(outcomes.slice(3).sort()).toEqual(["debited", "refused"]);
        expect((await store.read.ledger.totals(scope, at(0))).availableCents).toBe(200);
        expect((await store.read.ledger.totals(live, at(0))).availableCents).toBe(200);
      });
    });
  });
}
