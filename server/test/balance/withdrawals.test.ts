import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allPermissions } from "../../src/domain/accounts/index.js";
import { creditPaidCharge, insertCharge, type NewCharge } from "../../src/domain/payments/index.js";
import type { Account } from "../../src/domain/core/model.js";
import type { components } from "../../../generated/api.js";
import {
  byId,
  chargeBody,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
} from "../harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type CreateWithdrawalRequest = components["schemas"]["CreateWithdrawalRequest"];
const api = (key: string) => publicApi(server.baseUrl, { key });
const withdraw = (key: string, body: CreateWithdrawalRequest, idempotencyKey?: string) =>
  api(key).POST("/api/v1/withdrawals", {
    body,
    ...(idempotencyKey === undefined ? {} : { params: { header: { "idempotency-key": idempotencyKey } } }),
  });
/** A body the document refuses: sent untyped. */
const rawWithdraw = (key: string, body: unknown) =>
  rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/withdrawals", { key, body });
const now = () => server.clock.now().toISOString();

const withdrawalBody = (overrides: Partial<CreateWithdrawalRequest> = {}): CreateWithdrawalRequest => ({
  amountCents: 2500,
  pixKey: "maria.santos@example.com.br",
  pixKeyType: "EMAIL",
  ...overrides,
});

async function balanceOf(key: string) {
  const res = await api(key).GET("/api/v1/balance");
  expectStatus(res, 200);
  return res.body;
}

async function withdrawalIds(key: string) {
  const res = await api(key).GET("/api/v1/withdrawals", { params: { query: { limit: 100 } } });
  expectStatus(res, 200);
  return res.body.data.map((w) => w.id);
}

/** Pays a test charge whose net amount is `netCents` (fee 80) through the sandbox. */
async function payTestCharge(key: string, netCents: number) {
  const charge = await api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: netCents + 80 }) });
  expectStatus(charge, 201);
  const paid = await api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id));
  expectStatus(paid, 200);
  return paid.body;
}

/** Gives the test scope `netCents` available: a paid charge, then the 1-day release period. */
async function fund(key: string, netCents: number) {
  await payTestCharge(key, netCents);
  server.clock.advance(86_400);
}

/**
 * Gives the production scope `netCents` available. Production payments come from the acquirer, so
 * the paid charge is written through the domain functions the settlement will use.
 */
async function fundLive(account: Account, netCents: number) {
  const scope = { accountId: account.id, livemode: true };
  await server.store.transaction(async (tx) => {
    const at = now();
    const body = chargeBody({ amountCents: netCents + 80 }) as NewCharge;
    const charge = await insertCharge(server.deps, tx, scope, account, body, at);
    await creditPaidCharge(tx, account, charge, at, { config: server.deps.config });
  });
  server.clock.advance(86_400);
}

/** A test key holding every permission, with a daily withdrawal limit. */
async function limitedKey(addKey: Awaited<ReturnType<TestServer["newAccount"]>>["addKey"], limit: number) {
  const key = await addKey({ permissions: [...allPermissions], dailyWithdrawLimitCents: limit });
  return key.secret;
}

let mailboxes = 0;
const uniqueOwner = () => `dono+${++mailboxes}@loja.example`;

describe("GET /api/v1/balance", () => {
  test("when a test charge is paid, then its net is pending for one day and then available", async () => {
    const { testKey } = await server.newAccount();
    await payTestCharge(testKey, 8910);

    const paidNow = await balanceOf(testKey);
    server.clock.advance(86_399);
    const justBefore = await balanceOf(testKey);
    server.clock.advance(1);
    const released = await balanceOf(testKey);

    expect(paidNow).toEqual({
      availableCents: 0,
      pendingCents: 8910,
      blockedCents: 0,
      withdrawableNowCents: 0,
      withdrawFeeCents: 80,
      livemode: false,
    });
    expect(justBefore).toMatchObject({ availableCents: 0, pendingCents: 8910 });
    expect(released).toEqual({
      availableCents: 8910,
      pendingCents: 0,
      blockedCents: 0,
      withdrawableNowCents: 8910,
      withdrawFeeCents: 80,
      livemode: false,
    });
  });

  test.each([
    { name: "520, below the 600 minimum", net: 520, withdrawable: 0 },
    { name: "exactly 600", net: 600, withdrawable: 600 },
    { name: "8910", net: 8910, withdrawable: 8910 },
  ])("when available is $name, then withdrawableNowCents is $withdrawable", async ({ net, withdrawable }) => {
    const { testKey } = await server.newAccount();
    await fund(testKey, net);

    const balance = await balanceOf(testKey);

    expect(balance).toMatchObject({ availableCents: net, withdrawableNowCents: withdrawable });
  });

  test("when the key has a daily withdrawal limit, then withdrawableNowCents is capped by what remains today", async () => {
    const { testKey, addKey } = await server.newAccount();
    const key = await limitedKey(addKey, 1000);
    await fund(testKey, 8910);

    const fresh = await balanceOf(key);
    await withdraw(key, withdrawalBody({ amountCents: 700 }));
    const afterUse = await balanceOf(key);
    const unlimited = await balanceOf(testKey);

    expect(fresh).toMatchObject({ availableCents: 8910, withdrawableNowCents: 1000 });
    expect(afterUse).toMatchObject({ availableCents: 8210, withdrawableNowCents: 0 });
    expect(unlimited).toMatchObject({ availableCents: 8210, withdrawableNowCents: 8210 });
  });

  test("when the test scope has money, then the production balance is separate and empty", async () => {
    const { testKey, liveKey } = await server.newAccount();
    await fund(testKey, 8910);

    const live = await balanceOf(liveKey as string);

    expect(live).toMatchObject({ availableCents: 0, pendingCents: 0, blockedCents: 0, livemode: true });
  });

  test("when money has moved several ways, then the ledger entries sum to available + pending + blocked", async () => {
    const { testKey, account } = await server.newAccount();
    await payTestCharge(testKey, 8910);
    await payTestCharge(testKey, 4920);
    server.clock.advance(86_400);
    await withdraw(testKey, withdrawalBody({ amountCents: 1000 }));
    await withdraw(testKey, withdrawalBody({ amountCents: 600 }));
    await payTestCharge(testKey, 1920);

    const balance = await balanceOf(testKey);
    const ledger = await server.store.read.ledger.list({ accountId: account.id, livemode: false });

    expect(balance).toMatchObject({ availableCents: 8910 + 4920 - 1000 - 600, pendingCents: 1920, blockedCents: 0 });
    const sum = ledger.reduce((total, entry) => total + entry.amountCents, 0);
    expect(sum).toBe(balance.availableCents + balance.pendingCents + balance.blockedCents);
  });
});

describe("POST /api/v1/withdrawals", () => {
  test("when a test key withdraws, then 201 PAID at once with the fee, one paid transfer and the key masked", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 10_000);

    const res = await withdraw(
      testKey,
      withdrawalBody({ amountCents: 2500, pixKey: "52998224725", pixKeyType: "CPF" }),
    );

    expectStatus(res, 201);
    expect(res.body.id).toMatch(/^wdr_[A-Za-z0-9]+$/);
    expect(res.body).toMatchObject({
      status: "PAID",
      amountCents: 2500,
      feeCents: 80,
      netAmountCents: 2420,
      paidAmountCents: 2420,
      returnedAmountCents: 0,
      pixKeyType: "CPF",
      failureReason: null,
      livemode: false,
      createdAt: now(),
    });
    expect(res.body.pixKey).not.toBe("52998224725");
    expect(res.body.pixKey).not.toContain("52998224725");
    expect(res.body.transfers).toEqual([
      { id: expect.any(String), amountCents: 2420, status: "PAID", endToEndId: expect.any(String), completedAt: now() },
    ]);
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 7500, pendingCents: 0 });
    const read = await api(testKey).GET("/api/v1/withdrawals/{id}", byId(res.body.id));
    expect(read.body).toEqual(res.body);
  });

  test.each([
    { name: "CPF", pixKey: "529.982.247-25", hidden: "52998224725" },
    { name: "CNPJ", pixKey: "11222333000181", hidden: "11222333000181" },
    { name: "EMAIL", pixKey: "maria.santos@example.com.br", hidden: "maria.santos@example.com.br" },
    { name: "PHONE", pixKey: "+5511987654321", hidden: "987654321" },
    { name: "EVP", pixKey: "123e4567-e89b-42d3-a456-426614174000", hidden: "123e4567-e89b-42d3-a456-426614174000" },
  ] as const)(
    "when the destination is a $name key, then it is returned partially hidden",
    async ({ name, pixKey, hidden }) => {
      const { testKey } = await server.newAccount();
      await fund(testKey, 1000);

      const res = await withdraw(testKey, withdrawalBody({ amountCents: 600, pixKey, pixKeyType: name }));

      expectStatus(res, 201);
      expect(res.body.pixKey).toContain("*");
      expect(res.body.pixKey).not.toContain(hidden);
    },
  );

  test("when a test withdrawal is made, then withdrawal.created and withdrawal.paid are recorded once each", async () => {
    const { testKey, account } = await server.newAccount();
    await fund(testKey, 5000);

    const res = await withdraw(testKey, withdrawalBody());
    expectStatus(res, 201);

    const events = await server.store.read.events.list({ accountId: account.id, livemode: false });
    const ofWithdrawal = events.filter((e) => e.type.startsWith("withdrawal."));
    expect(ofWithdrawal.map((e) => e.type).sort()).toEqual(["withdrawal.created", "withdrawal.paid"]);
    for (const event of ofWithdrawal) {
      expect(event.payload).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        livemode: false,
        apiVersion: "1.0.0",
        data: { object: { id: res.body.id, amountCents: 2500 } },
      });
    }
  });

  test.each([
    { name: "amountCents is 599", patch: { amountCents: 599 }, path: "amountCents" },
    { name: "amountCents is not an integer", patch: { amountCents: 1000.5 }, path: "amountCents" },
    { name: "pixKey is missing", patch: { pixKey: undefined }, path: "pixKey" },
    { name: "pixKeyType is outside the enum", patch: { pixKeyType: "IBAN" }, path: "pixKeyType" },
    { name: "a CPF key has bad check digits", patch: { pixKey: "52998224724", pixKeyType: "CPF" }, path: "pixKey" },
    { name: "an EMAIL key has no @", patch: { pixKey: "maria.example.com.br", pixKeyType: "EMAIL" }, path: "pixKey" },
    {
      name: "an EVP key is not a UUID",
      patch: { pixKey: "123e4567-e89b-42d3-a456", pixKeyType: "EVP" },
      path: "pixKey",
    },
    { name: "a PHONE key is too short", patch: { pixKey: "1198765", pixKeyType: "PHONE" }, path: "pixKey" },
    { name: "unknown field", patch: { surprise: true }, path: "surprise" },
  ])("when $name, then 400 VALIDATION_ERROR names the field and nothing moves", async ({ patch, path }) => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 5000);

    const res = await rawWithdraw(testKey, { ...withdrawalBody(), ...patch });

    expectStatus(res, 400);
    expect(res.body).toMatchObject({ ok: false, code: "VALIDATION_ERROR", path: "/api/v1/withdrawals" });
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
    expect((await balanceOf(testKey)).availableCents).toBe(5000);
    expect(await withdrawalIds(testKey)).toEqual([]);
  });

  test("when the amount exceeds the available balance, then 400 INSUFFICIENT_BALANCE naming the available amount and nothing moves", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 8910);
    await payTestCharge(testKey, 5000);
    const before = await balanceOf(testKey);

    const res = await withdraw(testKey, withdrawalBody({ amountCents: 8911 }));

    expectStatus(res, 400);
    expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
    expect(res.body.message).toContain("R$ 89,10");
    expect(await balanceOf(testKey)).toEqual(before);
    expect(await withdrawalIds(testKey)).toEqual([]);
  });

  test("when the key lacks withdrawals:write, then 403 API_KEY_PERMISSION naming it and nothing moves", async () => {
    const { testKey, addKey } = await server.newAccount();
    const { secret } = await addKey({});
    await fund(testKey, 5000);

    const res = await withdraw(secret, withdrawalBody());

    expectStatus(res, 403);
    expect(res.body.code).toBe("API_KEY_PERMISSION");
    expect(res.body.message).toContain("withdrawals:write");
    expect((await balanceOf(testKey)).availableCents).toBe(5000);
  });

  test("when the daily limit would be exceeded, then 403 WITHDRAW_DAILY_LIMIT saying what remains and nothing moves", async () => {
    const { testKey, addKey } = await server.newAccount();
    const key = await limitedKey(addKey, 1000);
    await fund(testKey, 8910);
    const first = await withdraw(key, withdrawalBody({ amountCents: 700 }));

    // 600 is the smallest withdrawal there is; 300 remain of the day's 1000.
    const res = await withdraw(key, withdrawalBody({ amountCents: 600 }));

    expectStatus(first, 201);
    expectStatus(res, 403);
    expect(res.body.code).toBe("WITHDRAW_DAILY_LIMIT");
    expect(res.body.message).toContain("R$ 3,00");
    expect((await balanceOf(testKey)).availableCents).toBe(8210);
    expect(await withdrawalIds(testKey)).toEqual([first.body.id]);
  });

  test("when the Brasília day turns at midnight (03:00Z), then the daily limit is fresh", async () => {
    server.clock.set("2026-10-03T12:00:00.000Z");
    const { testKey, addKey } = await server.newAccount();
    const key = await limitedKey(addKey, 1000);
    await fund(testKey, 8910);
    server.clock.set("2026-10-05T02:59:00.000Z");
    const used = await withdraw(key, withdrawalBody({ amountCents: 1000 }));
    const refused = await withdraw(key, withdrawalBody({ amountCents: 600 }));
    const lateBalance = await balanceOf(key);

    server.clock.advance(120);
    const nextDayBalance = await balanceOf(key);
    const fresh = await withdraw(key, withdrawalBody({ amountCents: 1000 }));

    expect(used.status).toBe(201);
    expect(refused.status).toBe(403);
    expect(lateBalance.withdrawableNowCents).toBe(0);
    expect(nextDayBalance.withdrawableNowCents).toBe(1000);
    expect(fresh.status).toBe(201);
  });

  // Brasília is UTC-03:00 (no daylight saving since 2019): its day runs from 03:00Z to 03:00Z.
  test.each([
    { name: "02:59Z, then 03:01Z", first: "2026-10-05T02:59:00.000Z", second: "2026-10-05T03:01:00.000Z", status: 201 },
    {
      name: "03:01Z, then 02:59Z next day",
      first: "2026-10-05T03:01:00.000Z",
      second: "2026-10-06T02:59:00.000Z",
      status: 403,
    },
    { name: "23:59Z, then 00:01Z", first: "2026-10-05T23:59:00.000Z", second: "2026-10-06T00:01:00.000Z", status: 403 },
  ])(
    "when a key limited to 1000 withdraws 700 at $name, then the second answers $status",
    async ({ first, second, status }) => {
      server.clock.set(new Date(new Date(first).getTime() - 2 * 86_400_000));
      const { testKey, addKey } = await server.newAccount();
      const key = await limitedKey(addKey, 1000);
      await fund(testKey, 8910);
      server.clock.set(first);
      const one = await withdraw(key, withdrawalBody({ amountCents: 700 }));
      server.clock.set(second);

      const two = await withdraw(key, withdrawalBody({ amountCents: 700 }));

      expect(one.status).toBe(201);
      expect(two.status).toBe(status);
    },
  );

  test("when the same idempotency-key and body are sent twice, then the first response is replayed and the balance is debited once", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 5000);
    const first = await withdraw(testKey, withdrawalBody(), "saque-1");
    expectStatus(first, 201);

    const second = await withdraw(testKey, withdrawalBody(), "saque-1");

    expectStatus(second, 201);
    expect(second.body).toEqual(first.body);
    expect(await withdrawalIds(testKey)).toEqual([first.body.id]);
    expect((await balanceOf(testKey)).availableCents).toBe(2500);
  });

  test("when the same idempotency-key comes with another body, then 409 IDEMPOTENCY_KEY_REUSED and nothing moves", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 5000);
    const first = await withdraw(testKey, withdrawalBody(), "saque-2");
    expectStatus(first, 201);

    const res = await withdraw(testKey, withdrawalBody({ amountCents: 1000 }), "saque-2");

    expectStatus(res, 409);
    expect(res.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await withdrawalIds(testKey)).toEqual([first.body.id]);
    expect((await balanceOf(testKey)).availableCents).toBe(2500);
  });

  test("when 20 withdrawals of the whole available balance arrive at once, then exactly one is made and the others are refused", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 5000);

    const responses = await Promise.all(
      Array.from({ length: 20 }, () => withdraw(testKey, withdrawalBody({ amountCents: 5000 }))),
    );

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status >= 500)).toEqual([]);
    const refused = responses.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(19);
    expect(new Set(refused.map((r) => `${r.status} ${"code" in r.body ? r.body.code : ""}`))).toEqual(
      new Set(["400 INSUFFICIENT_BALANCE"]),
    );
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 0, withdrawableNowCents: 0 });
    expect(await withdrawalIds(testKey)).toHaveLength(1);
  });

  test("when 10 withdrawals with one idempotency-key arrive at once, then one withdrawal is made and all answer it", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 5000);

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => withdraw(testKey, withdrawalBody(), "saque-race")),
    );

    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => (r.status === 201 ? r.body.id : r.status))).size).toBe(1);
    expect((await balanceOf(testKey)).availableCents).toBe(2500);
  });

  test("when a production key withdraws, then 201 PENDING, the owner is e-mailed the amount and withdrawal.created is recorded", async () => {
    const ownerEmail = uniqueOwner();
    const { liveKey, testKey, account } = await server.newAccount({ ownerEmail });
    const key = liveKey as string;
    await fundLive(account, 10_000);

    const res = await withdraw(key, withdrawalBody({ amountCents: 2500 }));

    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      status: "PENDING",
      amountCents: 2500,
      feeCents: 80,
      netAmountCents: 2420,
      paidAmountCents: 0,
      livemode: true,
    });
    expect(res.body.transfers).toEqual([
      { id: expect.any(String), amountCents: 2420, status: "PENDING", endToEndId: null, completedAt: null },
    ]);
    expect(await balanceOf(key)).toMatchObject({ availableCents: 7500, livemode: true });
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 0 });
    const mails = server.mail.filter((m) => m.to === ownerEmail);
    expect(mails).toHaveLength(1);
    expect(`${mails[0]?.subject} ${mails[0]?.text}`).toContain("R$ 25,00");
    const events = await server.store.read.events.list({ accountId: account.id, livemode: true });
    const created = events.filter((e) => e.type === "withdrawal.created");
    expect(created).toHaveLength(1);
    expect(created[0]?.payload).toMatchObject({ livemode: true, data: { object: { id: res.body.id } } });
    expect(events.filter((e) => e.type === "withdrawal.paid")).toEqual([]);
  });

  test("when a production withdrawal is replayed with its idempotency-key, then the owner is e-mailed once", async () => {
    const ownerEmail = uniqueOwner();
    const { liveKey, account } = await server.newAccount({ ownerEmail });
    const key = liveKey as string;
    await fundLive(account, 10_000);

    expectStatus(await withdraw(key, withdrawalBody(), "saque-live"), 201);
    expectStatus(await withdraw(key, withdrawalBody(), "saque-live"), 201);

    expect(server.mail.filter((m) => m.to === ownerEmail)).toHaveLength(1);
    expect((await balanceOf(key)).availableCents).toBe(7500);
  });

  test("when the account is not verified, then its production key answers 403 ACCOUNT_NOT_ACTIVE and no e-mail is sent", async () => {
    const ownerEmail = uniqueOwner();
    const { liveKey, account } = await server.newAccount({ ownerEmail });
    await fundLive(account, 10_000);
    await server.store.transaction((tx) => tx.accounts.update({ ...account, verified: false }));

    const res = await withdraw(liveKey as string, withdrawalBody());

    expectStatus(res, 403);
    expect(res.body.code).toBe("ACCOUNT_NOT_ACTIVE");
    expect(server.mail.filter((m) => m.to === ownerEmail)).toEqual([]);
    const totals = await server.store.read.ledger.totals({ accountId: account.id, livemode: true }, now());
    expect(totals.availableCents).toBe(10_000);
  });
});

describe("GET /api/v1/withdrawals/{id}", () => {
  test("when the withdrawal belongs to another mode or account, then 404 NOT_FOUND", async () => {
    const { testKey, liveKey } = await server.newAccount();
    const other = await server.newAccount();
    await fund(testKey, 5000);
    const made = await withdraw(testKey, withdrawalBody());
    expectStatus(made, 201);

    const fromLive = await api(liveKey as string).GET("/api/v1/withdrawals/{id}", byId(made.body.id));
    const fromOther = await api(other.testKey).GET("/api/v1/withdrawals/{id}", byId(made.body.id));

    expect(fromLive.status).toBe(404);
    expectStatus(fromOther, 404);
    expect(fromOther.body.code).toBe("NOT_FOUND");
  });
});

describe("GET /api/v1/withdrawals", () => {
  test("when there are several withdrawals, then they are listed newest first, page by page", async () => {
    const { testKey } = await server.newAccount();
    await fund(testKey, 5000);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      server.clock.advance(1);
      const made = await withdraw(testKey, withdrawalBody({ amountCents: 600 }));
      expectStatus(made, 201);
      ids.push(made.body.id);
    }

    const list = (query: { limit: number; startingAfter?: string }) =>
      api(testKey).GET("/api/v1/withdrawals", { params: { query } });
    const first = await list({ limit: 2 });
    expectStatus(first, 200);
    const second = await list({ limit: 2, startingAfter: first.body.data[1]?.id });
    expectStatus(second, 200);

    expect(first.body.hasMore).toBe(true);
    expect(second.body.hasMore).toBe(false);
    expect([...first.body.data, ...second.body.data].map((w) => w.id)).toEqual([...ids].reverse());
    expect(first.body.data[0]?.pixKey).not.toBe("maria.santos@example.com.br");
  });

  test("when the production key lists, then test withdrawals are not there", async () => {
    const { testKey, liveKey } = await server.newAccount();
    await fund(testKey, 5000);
    await withdraw(testKey, withdrawalBody());

    const listed = await withdrawalIds(liveKey as string);

    expect(listed).toEqual([]);
  });
});
