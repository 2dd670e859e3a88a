import { describe, expect, test } from "vitest";
import { call, chargeBody } from "./harness.js";
import { postgresStore, serverOn } from "./support/stores.js";

// The domain rules through the real HTTP stack, on the PostgreSQL store: a representative slice of
// the component suites, which otherwise run on the memory store.

const postgres = postgresStore("domain");

postgres.describe("HTTP flows on the PostgreSQL store", () => {
  const server = serverOn(postgres);

  const get = (key: string, path: string) => call(server.baseUrl, "GET", path, { key });
  const post = (key: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(server.baseUrl, "POST", path, { key, body, headers });
  const withdrawalBody = (amountCents: number) => ({
    amountCents,
    pixKey: "maria.santos@example.com.br",
    pixKeyType: "EMAIL",
  });

  async function paidCharge(key: string, amountCents: number) {
    const charge = await post(key, "/api/v1/charges/pix", chargeBody({ amountCents }));
    expect(charge.status).toBe(201);
    const paid = await post(key, `/api/v1/sandbox/transactions/${charge.body.id}/pay`);
    expect(paid.status).toBe(200);
    return paid.body;
  }

  describe("charge, payment and balance", () => {
    test("when a charge is paid, then it reads PAID, its net is pending, then available after the release day", async () => {
      const { testKey } = await server.newAccount();
      const charge = await post(testKey, "/api/v1/charges/pix", chargeBody({ amountCents: 8990 }));

      const paid = await post(testKey, `/api/v1/sandbox/transactions/${charge.body.id}/pay`);
      const pendingBalance = await get(testKey, "/api/v1/balance");
      server.clock.advance(86_400);
      const released = await get(testKey, "/api/v1/balance");
      const read = await get(testKey, `/api/v1/transactions/${charge.body.id}`);

      expect(charge.status).toBe(201);
      expect(paid.status).toBe(200);
      expect(read.body).toMatchObject({ id: charge.body.id, status: "PAID", netAmountCents: 8910 });
      expect(read.body.paidAt).toBe(paid.body.paidAt);
      expect(pendingBalance.body).toMatchObject({ availableCents: 0, pendingCents: 8910, blockedCents: 0 });
      expect(released.body).toMatchObject({ availableCents: 8910, pendingCents: 0, withdrawableNowCents: 8910 });
    });

    test("when a charge is paid twice, then the second is 400 REQUEST_ERROR and the balance is credited once", async () => {
      const { testKey } = await server.newAccount();
      const charge = await paidCharge(testKey, 5080);

      const again = await post(testKey, `/api/v1/sandbox/transactions/${charge.id}/pay`);

      expect(again.status).toBe(400);
      expect(again.body.code).toBe("REQUEST_ERROR");
      expect((await get(testKey, "/api/v1/balance")).body.pendingCents).toBe(5000);
    });

    test("when a WAITING_PAYMENT charge passes expiresAt, then it lists as EXPIRED and cannot be paid", async () => {
      const { testKey } = await server.newAccount();
      const expiresAt = new Date(server.clock.now().getTime() + 60_000).toISOString();
      const charge = await post(testKey, "/api/v1/charges/pix", chargeBody({ expiresAt }));
      server.clock.advance(60);

      const expired = await get(testKey, "/api/v1/transactions?status=EXPIRED");
      const waiting = await get(testKey, "/api/v1/transactions?status=WAITING_PAYMENT");
      const pay = await post(testKey, `/api/v1/sandbox/transactions/${charge.body.id}/pay`);

      expect(expired.body.data.map((t: { id: string }) => t.id)).toEqual([charge.body.id]);
      expect(expired.body.data[0].status).toBe("EXPIRED");
      expect(waiting.body.data).toEqual([]);
      expect(pay.status).toBe(400);
    });
  });

  describe("withdrawals", () => {
    test("when the amount is above the available balance, then 400 INSUFFICIENT_BALANCE and nothing is created", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey, 5080);
      server.clock.advance(86_400);

      const res = await post(testKey, "/api/v1/withdrawals", withdrawalBody(5001));

      expect(res.status).toBe(400);
      expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
      expect((await get(testKey, "/api/v1/withdrawals")).body.data).toEqual([]);
      expect((await get(testKey, "/api/v1/balance")).body.availableCents).toBe(5000);
    });

    test("when the whole balance is withdrawn, then 201, the balance is 0 and the ledger sums to it", async () => {
      const { testKey, account } = await server.newAccount();
      await paidCharge(testKey, 5080);
      server.clock.advance(86_400);

      const res = await post(testKey, "/api/v1/withdrawals", withdrawalBody(5000));

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: "PAID", amountCents: 5000, feeCents: 80, paidAmountCents: 4920 });
      expect((await get(testKey, "/api/v1/balance")).body).toMatchObject({ availableCents: 0, pendingCents: 0 });
      const ledger = await server.store.read.ledger.list({ accountId: account.id, livemode: false });
      expect(ledger.reduce((sum, e) => sum + e.amountCents, 0)).toBe(0);
      expect((await get(testKey, `/api/v1/withdrawals/${res.body.id}`)).body).toEqual(res.body);
    });

    test("when a key's daily limit is spent, then the next withdrawal is 403 WITHDRAW_DAILY_LIMIT", async () => {
      const { testKey, addKey } = await server.newAccount();
      const limited = await addKey({
        permissions: ["withdrawals:write", "withdrawals:read", "balance:read"],
        dailyWithdrawLimitCents: 1000,
      });
      await paidCharge(testKey, 9080);
      server.clock.advance(86_400);

      const first = await post(limited.secret, "/api/v1/withdrawals", withdrawalBody(700));
      const second = await post(limited.secret, "/api/v1/withdrawals", withdrawalBody(700));

      expect(first.status).toBe(201);
      expect(second.status).toBe(403);
      expect(second.body.code).toBe("WITHDRAW_DAILY_LIMIT");
      expect((await get(limited.secret, "/api/v1/balance")).body).toMatchObject({
        availableCents: 8300,
        withdrawableNowCents: 0,
      });
    });
  });

  describe("idempotency", () => {
    test("when a create is repeated with its idempotency-key, then the first response is replayed; another body is 409", async () => {
      const { testKey } = await server.newAccount();
      const headers = { "idempotency-key": "pedido-42" };

      const first = await post(testKey, "/api/v1/charges/pix", chargeBody(), headers);
      const replay = await post(testKey, "/api/v1/charges/pix", chargeBody(), headers);
      const reused = await post(testKey, "/api/v1/charges/pix", chargeBody({ amountCents: 100_00 }), headers);

      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(reused.status).toBe(409);
      expect(reused.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect((await get(testKey, "/api/v1/transactions")).body.data).toHaveLength(1);
    });

    test("when 10 withdrawals with one idempotency-key arrive at once, then one withdrawal is made and all answer it", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey, 9080);
      server.clock.advance(86_400);

      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          post(testKey, "/api/v1/withdrawals", withdrawalBody(1000), { "idempotency-key": "saque-race" }),
        ),
      );

      expect(results.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 201));
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect((await get(testKey, "/api/v1/balance")).body.availableCents).toBe(8000);
    });
  });

  describe("pagination", () => {
    test("when charges are walked two at a time, then every one comes once, newest first; a bad cursor is 400", async () => {
      const { testKey } = await server.newAccount();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        server.clock.advance(1);
        made.push((await post(testKey, "/api/v1/charges/pix", chargeBody({ description: `Pedido #${i}` }))).body.id);
      }

      const seen: string[] = [];
      let after = "";
      for (let guard = 0; guard < 10; guard++) {
        const page = await get(testKey, `/api/v1/transactions?limit=2${after ? `&startingAfter=${after}` : ""}`);
        seen.push(...page.body.data.map((t: { id: string }) => t.id));
        if (!page.body.hasMore) break;
        after = seen[seen.length - 1] as string;
      }
      const bad = await get(testKey, "/api/v1/transactions?startingAfter=txn_naoExiste");

      expect(seen).toEqual([...made].reverse());
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe("VALIDATION_ERROR");
      expect(bad.body.errors).toEqual([expect.objectContaining({ path: "startingAfter" })]);
    });
  });

  describe("customers", () => {
    test("when a customer is upserted twice by document, then 201 then 200, one customer, fields merged", async () => {
      const { testKey } = await server.newAccount();

      const created = await post(testKey, "/api/v1/customers", {
        name: "João Pereira",
        document: "11.222.333/0001-81",
        address: { city: "Recife", state: "PE" },
      });
      const updated = await post(testKey, "/api/v1/customers", {
        name: "João Pereira",
        document: "11222333000181",
        email: "financeiro@joao.example",
        address: { zipCode: "50030-230" },
      });
      const list = await get(testKey, "/api/v1/customers?document=11222333000181");

      expect([created.status, updated.status]).toEqual([201, 200]);
      expect(updated.body.id).toBe(created.body.id);
      expect(updated.body).toMatchObject({
        name: "João Pereira",
        email: "financeiro@joao.example",
        documentType: "CNPJ",
        address: { city: "Recife", state: "PE" },
      });
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    });

    test("when a charge names a known document, then it reuses that customer; a new document makes one", async () => {
      const { testKey } = await server.newAccount();
      const first = await post(testKey, "/api/v1/charges/pix", chargeBody());
      const second = await post(testKey, "/api/v1/charges/pix", chargeBody({ amountCents: 1990 }));

      const customers = await get(testKey, "/api/v1/customers");

      expect(second.body.customer.id).toBe(first.body.customer.id);
      expect(customers.body.data).toHaveLength(1);
    });
  });
});
