import { describe, expect, test } from "vitest";
import { bodyOf, byId, chargeBody, expectStatus, publicApi } from "../harness.js";
import { postgresStore, serverOn } from "../support/stores.js";
import type { CreatePixChargeRequest } from "../support/fixtures.js";

// The domain rules through the real HTTP stack, on the PostgreSQL store: a representative slice of
// the component suites, which otherwise run on the memory store.

const postgres = postgresStore("domain");

postgres.describe("HTTP flows on the PostgreSQL store", () => {
  const server = serverOn(postgres);

  const api = (key: string) => publicApi(server.baseUrl, { key });
  const createCharge = (key: string, body: CreatePixChargeRequest, idempotencyKey?: string) =>
    api(key).POST("/api/v1/charges/pix", {
      body,
      ...(idempotencyKey === undefined ? {} : { params: { header: { "idempotency-key": idempotencyKey } } }),
    });
  const pay = (key: string, id: string) => api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(id));
  const balance = (key: string) => bodyOf(api(key).GET("/api/v1/balance"), 200);
  const withdraw = (key: string, amountCents: number, idempotencyKey?: string) =>
    api(key).POST("/api/v1/withdrawals", {
      body: { amountCents, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" },
      ...(idempotencyKey === undefined ? {} : { params: { header: { "idempotency-key": idempotencyKey } } }),
    });

  async function paidCharge(key: string, amountCents: number) {
    const charge = await bodyOf(createCharge(key, chargeBody({ amountCents })), 201);
    return bodyOf(pay(key, charge.id), 200);
  }

  describe("charge, payment and balance", () => {
    test("when a charge is paid, then it reads PAID, its net is pending, then available after the release day", async () => {
      const { testKey } = await server.newAccount();
      const charge = await createCharge(testKey, chargeBody({ amountCents: 8990 }));
      expectStatus(charge, 201);

      const paid = await pay(testKey, charge.body.id);
      const pendingBalance = await balance(testKey);
      server.clock.advance(86_400);
      const released = await balance(testKey);
      const read = await bodyOf(api(testKey).GET("/api/v1/transactions/{id}", byId(charge.body.id)), 200);

      expectStatus(paid, 200);
      expect(read).toMatchObject({ id: charge.body.id, status: "PAID", netAmountCents: 8910 });
      expect(read.paidAt).toBe(paid.body.paidAt);
      expect(pendingBalance).toMatchObject({ availableCents: 0, pendingCents: 8910, blockedCents: 0 });
      expect(released).toMatchObject({ availableCents: 8910, pendingCents: 0, withdrawableNowCents: 8910 });
    });

    test("when a charge is paid twice, then the second is 400 REQUEST_ERROR and the balance is credited once", async () => {
      const { testKey } = await server.newAccount();
      const charge = await paidCharge(testKey, 5080);

      const again = await pay(testKey, charge.id);

      expectStatus(again, 400);
      expect(again.body.code).toBe("REQUEST_ERROR");
      expect((await balance(testKey)).pendingCents).toBe(5000);
    });

    test("when a WAITING_PAYMENT charge passes expiresAt, then it lists as EXPIRED and cannot be paid", async () => {
      const { testKey } = await server.newAccount();
      const expiresAt = new Date(server.clock.now().getTime() + 60_000).toISOString();
      const charge = await bodyOf(createCharge(testKey, chargeBody({ expiresAt })), 201);
      server.clock.advance(60);

      const list = (status: "EXPIRED" | "WAITING_PAYMENT") =>
        bodyOf(api(testKey).GET("/api/v1/transactions", { params: { query: { status } } }), 200);
      const expired = await list("EXPIRED");
      const waiting = await list("WAITING_PAYMENT");
      const paying = await pay(testKey, charge.id);

      expect(expired.data.map((t) => t.id)).toEqual([charge.id]);
      expect(expired.data[0]?.status).toBe("EXPIRED");
      expect(waiting.data).toEqual([]);
      expect(paying.status).toBe(400);
    });
  });

  describe("withdrawals", () => {
    test("when the amount is above the available balance, then 400 INSUFFICIENT_BALANCE and nothing is created", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey, 5080);
      server.clock.advance(86_400);

      const res = await withdraw(testKey, 5001);

      expectStatus(res, 400);
      expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
      expect((await bodyOf(api(testKey).GET("/api/v1/withdrawals"), 200)).data).toEqual([]);
      expect((await balance(testKey)).availableCents).toBe(5000);
    });

    test("when the whole balance is withdrawn, then 201, the balance is 0 and the ledger sums to it", async () => {
      const { testKey, account } = await server.newAccount();
      await paidCharge(testKey, 5080);
      server.clock.advance(86_400);

      const res = await withdraw(testKey, 5000);

      expectStatus(res, 201);
      expect(res.body).toMatchObject({ status: "PAID", amountCents: 5000, feeCents: 80, paidAmountCents: 4920 });
      expect(await balance(testKey)).toMatchObject({ availableCents: 0, pendingCents: 0 });
      const ledger = await server.store.read.ledger.list({ accountId: account.id, livemode: false });
      expect(ledger.reduce((sum, e) => sum + e.amountCents, 0)).toBe(0);
      expect((await api(testKey).GET("/api/v1/withdrawals/{id}", byId(res.body.id))).body).toEqual(res.body);
    });

    test("when a key's daily limit is spent, then the next withdrawal is 403 WITHDRAW_DAILY_LIMIT", async () => {
      const { testKey, addKey } = await server.newAccount();
      const limited = await addKey({
        permissions: ["withdrawals:write", "withdrawals:read", "balance:read"],
        dailyWithdrawLimitCents: 1000,
      });
      await paidCharge(testKey, 9080);
      server.clock.advance(86_400);

      const first = await withdraw(limited.secret, 700);
      const second = await withdraw(limited.secret, 700);

      expect(first.status).toBe(201);
      expectStatus(second, 403);
      expect(second.body.code).toBe("WITHDRAW_DAILY_LIMIT");
      expect(await balance(limited.secret)).toMatchObject({
        availableCents: 8300,
        withdrawableNowCents: 0,
      });
    });
  });

  describe("idempotency", () => {
    test("when a create is repeated with its idempotency-key, then the first response is replayed; another body is 409", async () => {
      const { testKey } = await server.newAccount();
      const key = "pedido-42";

      const first = await createCharge(testKey, chargeBody(), key);
      const replay = await createCharge(testKey, chargeBody(), key);
      const reused = await createCharge(testKey, chargeBody({ amountCents: 100_00 }), key);

      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expectStatus(reused, 409);
      expect(reused.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect((await bodyOf(api(testKey).GET("/api/v1/transactions"), 200)).data).toHaveLength(1);
    });

    test("when 10 withdrawals with one idempotency-key arrive at once, then one withdrawal is made and all answer it", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey, 9080);
      server.clock.advance(86_400);

      const results = await Promise.all(Array.from({ length: 10 }, () => withdraw(testKey, 1000, "saque-race")));

      expect(results.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 201));
      expect(new Set(results.map((r) => (r.status === 201 ? r.body.id : r.status))).size).toBe(1);
      expect((await balance(testKey)).availableCents).toBe(8000);
    });
  });

  describe("pagination", () => {
    test("when charges are walked two at a time, then every one comes once, newest first; a bad cursor is 400", async () => {
      const { testKey } = await server.newAccount();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        server.clock.advance(1);
        made.push((await bodyOf(createCharge(testKey, chargeBody({ description: `Pedido #${i}` })), 201)).id);
      }

      const list = (query: { limit?: number; startingAfter?: string }) =>
        api(testKey).GET("/api/v1/transactions", { params: { query } });
      const seen: string[] = [];
      let after = "";
      for (let guard = 0; guard < 10; guard++) {
        const page = await bodyOf(list({ limit: 2, ...(after ? { startingAfter: after } : {}) }), 200);
        seen.push(...page.data.map((t) => t.id));
        if (!page.hasMore) break;
        after = seen[seen.length - 1] as string;
      }
      const bad = await list({ startingAfter: "txn_naoExiste" });

      expect(seen).toEqual([...made].reverse());
      expectStatus(bad, 400);
      expect(bad.body.code).toBe("VALIDATION_ERROR");
      expect(bad.body.errors).toEqual([expect.objectContaining({ path: "startingAfter" })]);
    });
  });

  describe("customers", () => {
    test("when a customer is upserted twice by document, then 201 then 200, one customer, fields merged", async () => {
      const { testKey } = await server.newAccount();

      const upsert = api(testKey).POST;
      const created = await upsert("/api/v1/customers", {
        body: { name: "João Pereira", document: "11.222.333/0001-81", address: { city: "Recife", state: "PE" } },
      });
      const updated = await upsert("/api/v1/customers", {
        body: {
          name: "João Pereira",
          document: "11222333000181",
          email: "financeiro@joao.example",
          address: { zipCode: "50030-230" },
        },
      });
      const list = await bodyOf(
        api(testKey).GET("/api/v1/customers", { params: { query: { document: "11222333000181" } } }),
        200,
      );

      expectStatus(created, 201);
      expectStatus(updated, 200);
      expect(updated.body.id).toBe(created.body.id);
      expect(updated.body).toMatchObject({
        name: "João Pereira",
        email: "financeiro@joao.example",
        documentType: "CNPJ",
        address: { city: "Recife", state: "PE" },
      });
      expect(list.data.map((c) => c.id)).toEqual([created.body.id]);
    });

    test("when a charge names a known document, then it reuses that customer; a new document makes one", async () => {
      const { testKey } = await server.newAccount();
      const first = await bodyOf(createCharge(testKey, chargeBody()), 201);
      const second = await bodyOf(createCharge(testKey, chargeBody({ amountCents: 1990 })), 201);

      const customers = await bodyOf(api(testKey).GET("/api/v1/customers"), 200);

      expect(second.customer.id).toBe(first.customer.id);
      expect(customers.data).toHaveLength(1);
    });
  });
});
