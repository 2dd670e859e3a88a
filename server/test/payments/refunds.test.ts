import { describe, expect, test } from "vitest";
import type { components as operator } from "../../../generated/admin-api.js";
import type { components } from "../../../generated/api.js";
import {
  byId,
  chargeBody,
  type ErrorBody,
  expectStatus,
  operatorApi,
  publicApi,
  rawCall,
  testAdminToken,
} from "../harness.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// Refunds (devolução Pix) through the real HTTP stack, on both stores: the same suite runs on the
// memory store and on PostgreSQL, since every refund moves money.

function refundSuite(store: StoreUnderTest) {
  const server = serverOn(store);

  const api = (key: string) => publicApi(server.baseUrl, { key });
  const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });
  const refund = (
    key: string,
    id: string,
    body: components["schemas"]["CreateRefundRequest"] = {},
    idempotencyKey?: string,
  ) =>
    api(key).POST("/api/v1/transactions/{id}/refunds", {
      params: {
        path: { id },
        ...(idempotencyKey === undefined ? {} : { header: { "idempotency-key": idempotencyKey } }),
      },
      body,
    });
  /** A refund that must be made. */
  async function newRefund(key: string, id: string, body: components["schemas"]["CreateRefundRequest"] = {}) {
    const res = await refund(key, id, body);
    expectStatus(res, 201);
    return res.body;
  }
  const balance = async (key: string) => {
    const res = await api(key).GET("/api/v1/balance");
    expectStatus(res, 200);
    return res.body;
  };
  const charge = async (key: string, id: string) => {
    const res = await api(key).GET("/api/v1/transactions/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };
  const readRefund = (key: string, id: string) => api(key).GET("/api/v1/refunds/{id}", byId(id));
  const eventTypes = async (key: string) => {
    const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(res, 200);
    return res.body.data.map((e) => e.type);
  };
  const newCharge = async (key: string, amountCents = 8990) => {
    const created = await api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
    expectStatus(created, 201);
    return created.body;
  };
  const pay = (key: string, id: string) => api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(id));
  const openDispute = async (key: string, id: string, amountCents: number) => {
    const opened = await api(key).POST("/api/v1/sandbox/transactions/{id}/dispute", {
      ...byId(id),
      body: { amountCents },
    });
    expectStatus(opened, 201);
    return opened.body.dispute?.id as string;
  };
  const resolve = async (key: string, disputeId: string, outcome: "WON" | "LOST") =>
    expectStatus(
      await api(key).POST("/api/v1/sandbox/disputes/{id}/resolve", { ...byId(disputeId), body: { outcome } }),
      200,
    );
  const settle = (id: string, body: operator["schemas"]["SettleRefundRequest"]) =>
    admin().POST("/admin/v1/simulator/refunds/{id}/settle", { ...byId(id), body });

  /** A paid test charge of `amountCents` (net = amount - 80), its money released at once. */
  async function paidCharge(key: string, amountCents = 8990) {
    const created = await newCharge(key, amountCents);
    const paid = await pay(key, created.id);
    expectStatus(paid, 200);
    expect((await api(key).POST("/api/v1/sandbox/balance/release")).status).toBe(200);
    return paid.body;
  }

  /** An account whose test mode has `extraCents` available beyond the charge under test. */
  async function accountWithCushion(extraCents = 100_000) {
    const ctx = await server.newAccount();
    await paidCharge(ctx.testKey, extraCents + 80);
    return ctx;
  }

  describe("POST /api/v1/transactions/{id}/refunds", () => {
    test("when part of a paid charge is refunded, then 201 COMPLETED, refundedAmountCents grows, the status stays PAID and the amount leaves the available balance", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const before = await balance(testKey);

      const res = await refund(testKey, paid.id, { amountCents: 2990, reason: "Produto devolvido pelo cliente" });

      expectStatus(res, 201);
      expect(res.body).toMatchObject({
        transactionId: paid.id,
        amountCents: 2990,
        status: "COMPLETED",
        reason: "Produto devolvido pelo cliente",
        failureReason: null,
        livemode: false,
      });
      expect(res.body.id).toMatch(/^rfd_/);
      expect(res.body.endToEndId).toMatch(/^D[0-9]{20}[A-Za-z0-9]{11}$/);
      expect(await charge(testKey, paid.id)).toMatchObject({ status: "PAID", refundedAmountCents: 2990 });
      expect((await balance(testKey)).availableCents).toBe(before.availableCents - 2990);
      expect((await eventTypes(testKey)).slice(0, 2)).toEqual(["refund.completed", "refund.created"]);
    });

    test("when a charge has never been refunded, then it reads refundedAmountCents 0", async () => {
      const { testKey } = await server.newAccount();
      const paid = await paidCharge(testKey);
      expect((await charge(testKey, paid.id)).refundedAmountCents).toBe(0);
    });

    test("when no amount is given, then everything left is refunded and a further refund is refused", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      await newRefund(testKey, paid.id, { amountCents: 1000 });

      const rest = await refund(testKey, paid.id, {});
      const again = await refund(testKey, paid.id, { amountCents: 1 });

      expectStatus(rest, 201);
      expect(rest.body.amountCents).toBe(7990);
      expectStatus(again, 400);
      expect(again.body.code).toBe("REQUEST_ERROR");
      expect((await charge(testKey, paid.id)).refundedAmountCents).toBe(8990);
    });

    test("when refunds would add up to more than the amount, then 400 REQUEST_ERROR and nothing changes", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      await refund(testKey, paid.id, { amountCents: 5000 });
      const before = await balance(testKey);

      const res = await refund(testKey, paid.id, { amountCents: 3991 });

      expectStatus(res, 400);
      expect(res.body.code).toBe("REQUEST_ERROR");
      expect(res.body.message).toContain("R$ 39,90");
      expect(await balance(testKey)).toEqual(before);
      const refunds = await api(testKey).GET("/api/v1/transactions/{id}/refunds", byId(paid.id));
      expectStatus(refunds, 200);
      expect(refunds.body.data).toHaveLength(1);
    });

    test("when the charge fee is not covered by other money, then refunding the whole charge is 400 INSUFFICIENT_BALANCE (the fee is not returned)", async () => {
      const { testKey } = await server.newAccount();
      const paid = await paidCharge(testKey);
      const before = await balance(testKey);

      const res = await refund(testKey, paid.id, {});

      expect(before.availableCents).toBe(8910);
      expectStatus(res, 400);
      expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
      expect(await balance(testKey)).toEqual(before);
      expect((await charge(testKey, paid.id)).refundedAmountCents).toBe(0);
      expect(await eventTypes(testKey)).not.toContain("refund.created");
    });

    // Record 0055 changed this on purpose: it was 400 INSUFFICIENT_BALANCE while the charge's
    // money was pending; a refund now comes out of the charge's own pending money first.
    test("when the charge's money is still pending, then the refund is made from it: 201, pendingCents falls and availableCents stays 0", async () => {
      const { testKey } = await server.newAccount();
      const created = await newCharge(testKey);
      expectStatus(await pay(testKey, created.id), 200);

      const res = await refund(testKey, created.id, { amountCents: 1000 });

      expectStatus(res, 201);
      expect(res.body).toMatchObject({ amountCents: 1000, status: "COMPLETED" });
      expect(await balance(testKey)).toMatchObject({ availableCents: 0, pendingCents: 7910, blockedCents: 0 });
    });

    test.each([
      { name: "waiting for payment", make: "waiting" },
      { name: "expired", make: "expired" },
      { name: "cancelled", make: "cancelled" },
    ])("when the charge is $name, then 400 REQUEST_ERROR", async ({ make }) => {
      const { testKey } = await accountWithCushion();
      const created = await newCharge(testKey);
      if (make === "expired")
        expectStatus(await api(testKey).POST("/api/v1/sandbox/transactions/{id}/expire", byId(created.id)), 200);
      if (make === "cancelled")
        expectStatus(await api(testKey).POST("/api/v1/transactions/{id}/cancel", byId(created.id)), 200);

      const res = await refund(testKey, created.id, { amountCents: 1000 });

      expectStatus(res, 400);
      expect(res.body.code).toBe("REQUEST_ERROR");
    });

    test("when the charge is unknown or of the other mode, then 404 NOT_FOUND", async () => {
      const { testKey, liveKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);

      expect((await refund(testKey, "txn_doesnotexist0000000")).status).toBe(404);
      const other = await refund(liveKey as string, paid.id, { amountCents: 100 });
      expectStatus(other, 404);
      expect(other.body.code).toBe("NOT_FOUND");
    });

    test("when 90 days have passed since paidAt, then 400 REQUEST_ERROR; on day 90 it is still allowed", async () => {
      const { testKey } = await accountWithCushion(500_000);
      const early = await paidCharge(testKey);
      const late = await paidCharge(testKey);

      server.clock.advance(90 * 86_400);
      const onDay90 = await refund(testKey, early.id, { amountCents: 1000 });
      server.clock.advance(1);
      const after = await refund(testKey, late.id, { amountCents: 1000 });

      expectStatus(onDay90, 201);
      expectStatus(after, 400);
      expect(after.body.code).toBe("REQUEST_ERROR");
      expect(after.body.message).toContain("90 dias");
    });

    test("when a MED on the charge is OPEN, then 400 REQUEST_ERROR; once WON the charge is refundable again", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const disputeId = await openDispute(testKey, paid.id, 4000);

      const whileOpen = await refund(testKey, paid.id, { amountCents: 1000 });
      await resolve(testKey, disputeId, "WON");
      const afterWon = await refund(testKey, paid.id, {});

      expectStatus(whileOpen, 400);
      expect(whileOpen.body.code).toBe("REQUEST_ERROR");
      expect(whileOpen.body.message).toContain("MED");
      expectStatus(afterWon, 201);
      expect(afterWon.body.amountCents).toBe(8990);
    });

    test("when a MED was LOST, then only the part it did not return can be refunded", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const disputeId = await openDispute(testKey, paid.id, 4000);
      await resolve(testKey, disputeId, "LOST");

      const tooMuch = await refund(testKey, paid.id, { amountCents: 4991 });
      const rest = await refund(testKey, paid.id, {});

      expectStatus(tooMuch, 400);
      expect(tooMuch.body.code).toBe("REQUEST_ERROR");
      expectStatus(rest, 201);
      expect(rest.body.amountCents).toBe(4990);
    });

    test("when the reason is sandbox:falha, then the refund ends FAILED, its amount is back and the charge can be refunded again", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const before = await balance(testKey);

      const failed = await refund(testKey, paid.id, { amountCents: 3000, reason: "sandbox:falha" });
      expectStatus(failed, 201);
      const read = await readRefund(testKey, failed.body.id);

      expect(failed.body).toMatchObject({ status: "FAILED", endToEndId: null, reason: "sandbox:falha" });
      expect(failed.body.failureReason).toEqual(expect.any(String));
      expect(read.body).toEqual(failed.body);
      expect(await balance(testKey)).toEqual(before);
      expect((await charge(testKey, paid.id)).refundedAmountCents).toBe(0);
      expect((await eventTypes(testKey)).slice(0, 2)).toEqual(["refund.failed", "refund.created"]);
      expect((await newRefund(testKey, paid.id)).amountCents).toBe(8990);
    });

    test("when the same idempotency-key is sent twice, then one refund; with another body, then 409", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const key = "devolucao-1234-1";

      const first = await refund(testKey, paid.id, { amountCents: 1000 }, key);
      const replay = await refund(testKey, paid.id, { amountCents: 1000 }, key);
      const other = await refund(testKey, paid.id, { amountCents: 2000 }, key);

      expectStatus(first, 201);
      expectStatus(replay, 201);
      expect(replay.body).toEqual(first.body);
      expectStatus(other, 409);
      expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect((await charge(testKey, paid.id)).refundedAmountCents).toBe(1000);
    });

    test.each([
      { name: "amountCents 0", body: { amountCents: 0 }, field: "amountCents" },
      { name: "amountCents past the largest amount", body: { amountCents: 1_000_000_000_000 }, field: "amountCents" },
      { name: "a reason of 2 characters", body: { reason: "ok" }, field: "reason" },
      { name: "a reason of 141 characters", body: { reason: "x".repeat(141) }, field: "reason" },
      { name: "an unknown field", body: { amount: 100 }, field: "amount" },
    ])("when the body has $name, then 400 VALIDATION_ERROR on it", async ({ body, field }) => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);

      // Bodies the document refuses: sent untyped.
      const res = await rawCall<ErrorBody>(server.baseUrl, "POST", `/api/v1/transactions/${paid.id}/refunds`, {
        key: testKey,
        body,
      });

      expectStatus(res, 400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(res.body.errors)).toContain(field);
      expect((await charge(testKey, paid.id)).refundedAmountCents).toBe(0);
    });
  });

  describe("a refund from the charge's pending money (record 0055)", () => {
    /** The scope's ledger adds up to the balance: every entry's sum is available + pending + blocked. */
    async function expectLedgerAddsUp(accountId: string, key: string) {
      const entries = await server.store.read.ledger.list({ accountId, livemode: false });
      const shown = await balance(key);
      expect(entries.reduce((sum, e) => sum + e.amountCents, 0)).toBe(
        shown.availableCents + shown.pendingCents + shown.blockedCents,
      );
      expect(shown.availableCents).toBeGreaterThanOrEqual(0);
      expect(shown.pendingCents).toBeGreaterThanOrEqual(0);
      return shown;
    }
    /** A test charge of 89,90 paid now (net 89,10 pending for a day). */
    async function paidToday(key: string) {
      const created = await newCharge(key);
      expectStatus(await pay(key, created.id), 200);
      return created.id;
    }
    const refundEntries = async (accountId: string, refundId: string) =>
      (await server.store.read.ledger.list({ accountId, livemode: false }))
        .filter((e) => e.refId === refundId)
        .map((e) => ({ kind: e.kind, amountCents: e.amountCents, pending: e.releaseAt !== null }));

    test("when a charge paid today is partly refunded, then it comes from its pending money, the available balance is untouched, and the release brings the net amount less the refund", async () => {
      const { testKey, account } = await accountWithCushion(1000);
      const id = await paidToday(testKey);
      const before = await expectLedgerAddsUp(account.id, testKey);

      const made = await newRefund(testKey, id, { amountCents: 2990 });
      const after = await expectLedgerAddsUp(account.id, testKey);
      server.clock.advance(86_400 + 1);
      const released = await expectLedgerAddsUp(account.id, testKey);

      expect(before).toMatchObject({ availableCents: 1000, pendingCents: 8910 });
      expect(made).toMatchObject({ amountCents: 2990, status: "COMPLETED" });
      expect(after).toMatchObject({ availableCents: 1000, pendingCents: 8910 - 2990 });
      expect(released).toMatchObject({ availableCents: 1000 + 8910 - 2990, pendingCents: 0 });
      expect(await refundEntries(account.id, made.id)).toEqual([{ kind: "refund", amountCents: -2990, pending: true }]);
    });

    test("when a refund is larger than the charge's pending money, then the rest comes from the available balance", async () => {
      const { testKey, account } = await accountWithCushion(1000);
      const id = await paidToday(testKey);
      const first = await newRefund(testKey, id, { amountCents: 5000 });

      const whole = await newRefund(testKey, id);
      const after = await expectLedgerAddsUp(account.id, testKey);

      expect(whole).toMatchObject({ amountCents: 3990, status: "COMPLETED" });
      expect(after).toMatchObject({ availableCents: 1000 - 80, pendingCents: 0 });
      expect(await refundEntries(account.id, first.id)).toEqual([
        { kind: "refund", amountCents: -5000, pending: true },
      ]);
      expect(await refundEntries(account.id, whole.id)).toEqual([
        { kind: "refund", amountCents: -3910, pending: true },
        { kind: "refund", amountCents: -80, pending: false },
      ]);
      expect((await charge(testKey, id)).refundedAmountCents).toBe(8990);
    });

    test("when the charge's pending money and the available balance together do not cover it, then 400 INSUFFICIENT_BALANCE naming both, another charge's pending money is not used, and nothing moves", async () => {
      const { testKey, account } = await server.newAccount();
      const id = await paidToday(testKey);
      await paidToday(testKey);
      await newRefund(testKey, id, { amountCents: 3000 });
      const before = await expectLedgerAddsUp(account.id, testKey);

      const res = await refund(testKey, id, {});

      expect(before).toMatchObject({ availableCents: 0, pendingCents: 2 * 8910 - 3000 });
      expectStatus(res, 400);
      expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
      expect(res.body.message).toBe(
        "Saldo insuficiente para a devolução: desta cobrança ainda a liberar R$ 59,10, disponível R$ 0,00.",
      );
      expect(await expectLedgerAddsUp(account.id, testKey)).toEqual(before);
      expect((await charge(testKey, id)).refundedAmountCents).toBe(3000);
      expectStatus(await refund(testKey, id, { amountCents: 5910 }), 201);
      expect(await expectLedgerAddsUp(account.id, testKey)).toMatchObject({ availableCents: 0, pendingCents: 8910 });
    });

    test("when a refund from pending and available money fails, then each part returns where it came from", async () => {
      const { testKey, account } = await accountWithCushion(1000);
      const id = await paidToday(testKey);
      const before = await expectLedgerAddsUp(account.id, testKey);

      const failed = await newRefund(testKey, id, { reason: "sandbox:falha" });
      const after = await expectLedgerAddsUp(account.id, testKey);
      server.clock.advance(86_400 + 1);
      const released = await expectLedgerAddsUp(account.id, testKey);

      expect(failed).toMatchObject({ status: "FAILED", amountCents: 8990 });
      expect(after).toEqual(before);
      expect(released).toMatchObject({ availableCents: 1000 + 8910, pendingCents: 0 });
      expect(await refundEntries(account.id, failed.id)).toEqual([
        { kind: "refund", amountCents: -8910, pending: true },
        { kind: "refund", amountCents: -80, pending: false },
        { kind: "refund_returned", amountCents: 8910, pending: true },
        { kind: "refund_returned", amountCents: 80, pending: false },
      ]);
      expect((await charge(testKey, id)).refundedAmountCents).toBe(0);
    });

    test("when test mode releases the pending money between two refunds, then the second takes only from the available balance", async () => {
      const { testKey, account } = await server.newAccount();
      const id = await paidToday(testKey);
      await newRefund(testKey, id, { amountCents: 3000 });
      expect((await api(testKey).POST("/api/v1/sandbox/balance/release")).status).toBe(200);
      const released = await expectLedgerAddsUp(account.id, testKey);

      const second = await newRefund(testKey, id, { amountCents: 1000 });
      const after = await expectLedgerAddsUp(account.id, testKey);

      expect(released).toMatchObject({ availableCents: 5910, pendingCents: 0 });
      expect(after).toMatchObject({ availableCents: 4910, pendingCents: 0 });
      expect(await refundEntries(account.id, second.id)).toEqual([
        { kind: "refund", amountCents: -1000, pending: false },
      ]);
    });
  });

  describe("GET /api/v1/refunds/{id} and GET /api/v1/transactions/{id}/refunds", () => {
    test("when a charge has refunds, then they list newest first in cursor pages and read one by one", async () => {
      const { testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const ids: string[] = [];
      for (const amountCents of [100, 200, 300]) ids.push((await newRefund(testKey, paid.id, { amountCents })).id);
      const page = (query: { limit: number; startingAfter?: string }) =>
        api(testKey).GET("/api/v1/transactions/{id}/refunds", { params: { path: { id: paid.id }, query } });

      const page1 = await page({ limit: 2 });
      const page2 = await page({ limit: 2, startingAfter: ids[1] });
      const one = await readRefund(testKey, ids[0] as string);

      expectStatus(page1, 200);
      expectStatus(page2, 200);
      expect(page1.body.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
      expect(page1.body.hasMore).toBe(true);
      expect(page2.body.data.map((r) => r.id)).toEqual([ids[0]]);
      expect(page2.body.hasMore).toBe(false);
      expect(one.body).toMatchObject({ id: ids[0], amountCents: 100, transactionId: paid.id });
    });

    test("when the refund or the charge is unknown or of the other mode, then 404", async () => {
      const { testKey, liveKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const made = await newRefund(testKey, paid.id, { amountCents: 100 });
      const refundsOf = (key: string, id: string) => api(key).GET("/api/v1/transactions/{id}/refunds", byId(id));

      expect((await readRefund(liveKey as string, made.id)).status).toBe(404);
      expect((await readRefund(testKey, "rfd_nope")).status).toBe(404);
      expect((await refundsOf(liveKey as string, paid.id)).status).toBe(404);
      expect((await refundsOf(testKey, "txn_nope")).status).toBe(404);
    });
  });

  describe("production refunds (settlement simulator)", () => {
    /** A paid production charge, its money available, and a cushion beyond it. */
    async function livePaid() {
      const ctx = await server.newAccount();
      const live = ctx.liveKey as string;
      const ids: string[] = [];
      for (const amountCents of [100_080, 8990]) {
        const created = await newCharge(live, amountCents);
        expect((await admin().POST("/admin/v1/simulator/transactions/{id}/pay", byId(created.id))).status).toBe(200);
        ids.push(created.id);
      }
      server.clock.advance(86_400);
      return { ...ctx, live, chargeId: ids[1] as string };
    }

    test("when a production refund is created, then it is PENDING until the simulator completes it", async () => {
      const { live, chargeId } = await livePaid();
      const before = await balance(live);

      const created = await refund(live, chargeId, { amountCents: 2990 });
      expectStatus(created, 201);
      const pendingBalance = await balance(live);
      const settled = await settle(created.body.id, { outcome: "COMPLETED" });
      const twice = await settle(created.body.id, { outcome: "FAILED" });

      expect(created.body).toMatchObject({ status: "PENDING", endToEndId: null, livemode: true });
      expect(pendingBalance.availableCents).toBe(before.availableCents - 2990);
      expectStatus(settled, 200);
      expect(settled.body.status).toBe("COMPLETED");
      expect(settled.body.endToEndId).toMatch(/^D/);
      expect((await readRefund(live, created.body.id)).body).toEqual(settled.body);
      expectStatus(twice, 400);
      expect(twice.body.code).toBe("REQUEST_ERROR");
      expect(await balance(live)).toEqual(pendingBalance);
      expect((await eventTypes(live)).slice(0, 2)).toEqual(["refund.completed", "refund.created"]);
    });

    test("when the simulator fails a production refund, then its amount returns and refundedAmountCents drops", async () => {
      const { live, chargeId } = await livePaid();
      const before = await balance(live);
      const created = await newRefund(live, chargeId);

      const failed = await settle(created.id, { outcome: "FAILED", failureReason: "Conta do pagador encerrada." });

      expect(created).toMatchObject({ status: "PENDING", amountCents: 8990 });
      expect(failed.body).toMatchObject({ status: "FAILED", failureReason: "Conta do pagador encerrada." });
      expect(await balance(live)).toEqual(before);
      expect((await charge(live, chargeId)).refundedAmountCents).toBe(0);
      expect((await eventTypes(live)).slice(0, 2)).toEqual(["refund.failed", "refund.created"]);
    });

    test("when a PENDING refund holds the rest of a charge, then another refund of it is refused", async () => {
      const { live, chargeId } = await livePaid();
      await refund(live, chargeId, {});

      const more = await refund(live, chargeId, { amountCents: 1 });

      expectStatus(more, 400);
      expect(more.body.code).toBe("REQUEST_ERROR");
    });

    test("when an unknown refund is settled, then 404", async () => {
      expect((await settle("rfd_nope", { outcome: "COMPLETED" })).status).toBe(404);
    });
  });

  describe("refunds:write", () => {
    test("when a key is created without permissions, then it holds refunds:write; the operator can remove and grant it", async () => {
      const { account, testKey } = await accountWithCushion();
      const paid = await paidCharge(testKey);
      const created = await admin().POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(account.id),
        body: { name: "padrão", mode: "test" },
      });
      expectStatus(created, 201);
      const key = created.body.secret;
      const permit = (permissions: operator["schemas"]["UpdateApiKeyRequest"]["permissions"]) =>
        admin().PATCH("/admin/v1/api-keys/{id}", { ...byId(created.body.id), body: { permissions } });

      const removed = await permit(["transactions:read"]);
      const refused = await refund(key, paid.id, { amountCents: 100 });
      expectStatus(await permit(["transactions:read", "refunds:write"]), 200);
      const allowed = await refund(key, paid.id, { amountCents: 100 });

      expect(created.body.permissions).toContain("refunds:write");
      expect(created.body.permissions).not.toContain("withdrawals:write");
      expectStatus(removed, 200);
      expectStatus(refused, 403);
      expect(refused.body.code).toBe("API_KEY_PERMISSION");
      expect(refused.body.message).toContain("refunds:write");
      expectStatus(allowed, 201);
    });
  });
}

for (const store of eachStore("refunds")) {
  store.describe(`refunds on the ${store.name} store`, () => {
    refundSuite(store);
  });
}
