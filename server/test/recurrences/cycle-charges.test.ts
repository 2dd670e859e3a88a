import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { brasiliaDate } from "../../src/domain/payments/index.js";
import { byId, expectStatus, publicApi } from "../harness.js";
import { dateAfter, recurrenceBody, type CreateRecurrenceRequest } from "../support/recurrences.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The cycle charges of a recurrence (Pix Automático) through the real HTTP stack on both stores:
// the Central Bank's rules for sending them, their attempts and retries with reason codes, the
// merchant's cancellation, the sandbox's calendar, and the money of a paid one (a charge like any).

type Recurrence = components["schemas"]["Recurrence"];
type Transaction = components["schemas"]["Transaction"];

function cycleSuite(store: StoreUnderTest) {
  const server = serverOn(store);
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const today = () => brasiliaDate(server.clock.now());

  /** An APPROVED test recurrence whose first cycle falls `firstIn` days from today. */
  async function approved(
    key: string,
    overrides: Partial<CreateRecurrenceRequest> = {},
    firstIn = 5,
  ): Promise<Recurrence> {
    const made = await api(key).POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate: dateAfter(today(), firstIn), ...overrides }),
    });
    expectStatus(made, 201);
    const ok = await api(key).POST("/api/v1/sandbox/recurrences/{id}/approve", { ...byId(made.body.id), body: {} });
    expectStatus(ok, 200);
    return ok.body;
  }
  const send = (key: string, id: string, body: components["schemas"]["CreateRecurringChargeRequest"]) =>
    api(key).POST("/api/v1/recurrences/{id}/charges", { ...byId(id), body });
  async function cycleCharge(key: string, r: Recurrence, dueDate = r.firstDate): Promise<Transaction> {
    const res = await send(key, r.id, { dueDate });
    expectStatus(res, 201);
    return res.body;
  }
  const settle = (key: string, id: string, body: components["schemas"]["SettleRecurringAttemptRequest"]) =>
    api(key).POST("/api/v1/sandbox/transactions/{id}/settle-attempt", { ...byId(id), body });
  async function settled(key: string, id: string, body: components["schemas"]["SettleRecurringAttemptRequest"]) {
    const res = await settle(key, id, body);
    expectStatus(res, 200);
    return res.body;
  }
  const readRecurrence = async (key: string, id: string) => {
    const res = await api(key).GET("/api/v1/recurrences/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };
  const balance = async (key: string) => {
    const res = await api(key).GET("/api/v1/balance");
    expectStatus(res, 200);
    return res.body;
  };
  const eventTypes = async (key: string) => {
    const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(res, 200);
    return res.body.data.map((e) => e.type);
  };

  describe("POST /api/v1/recurrences/{id}/charges", () => {
    test("when a cycle's charge is sent 5 days before its date, then 201 WAITING_PAYMENT with the recurrence, due date, one SCHEDULED attempt and the plan's fee, and recurring_charge.created", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey, {}, 5);

      const res = await send(testKey, r.id, { dueDate: r.firstDate, adjustToBusinessDay: false });

      expectStatus(res, 201);
      expect(res.body).toMatchObject({
        status: "WAITING_PAYMENT",
        amountCents: 4990,
        feeCents: 80,
        netAmountCents: 4910,
        description: "Mensalidade Academia Forma",
        recurrenceId: r.id,
        dueDate: r.firstDate,
        customer: r.payer,
        metadata: { planId: "mensal-basico" },
        paidAt: null,
      });
      expect(res.body.attempts).toEqual([
        {
          settlementDate: r.firstDate,
          type: "SCHEDULED",
          status: "SCHEDULED",
          reasonCode: null,
          reason: null,
          endToEndId: null,
          updatedAt: res.body.createdAt,
        },
      ]);
      expect((await eventTypes(testKey))[0]).toBe("recurring_charge.created");
      const listed = await api(testKey).GET("/api/v1/transactions", { params: { query: { recurrenceId: r.id } } });
      expectStatus(listed, 200);
      expect(listed.body.data.map((t) => t.id)).toEqual([res.body.id]);
    });

    test.each([
      { name: "1 day before its date (too late)", firstIn: 1, due: 0, message: "de 2 a 10 dias antes do vencimento" },
      {
        name: "11 days before its date (too early)",
        firstIn: 11,
        due: 0,
        message: "de 2 a 10 dias antes do vencimento",
      },
      { name: "a date that is no cycle", firstIn: 4, due: 1, message: "não é uma data de ciclo" },
    ])(
      "when it is sent for $name, then 400 REQUEST_ERROR and nothing is created",
      async ({ firstIn, due, message }) => {
        const { testKey } = await server.newAccount();
        const r = await approved(testKey, {}, firstIn);

        const res = await send(testKey, r.id, { dueDate: dateAfter(r.firstDate, due) });

        expectStatus(res, 400);
        expect(res.body.code).toBe("REQUEST_ERROR");
        expect(res.body.message).toContain(message);
        const listed = await api(testKey).GET("/api/v1/transactions", { params: { query: { recurrenceId: r.id } } });
        expectStatus(listed, 200);
        expect(listed.body.data).toEqual([]);
      },
    );

    test("when a weekly recurrence's cycle falls after its last date, then 400; one on its last date is taken", async () => {
      const { testKey } = await server.newAccount();
      const first = dateAfter(today(), 3);
      const r = await approved(testKey, { periodicity: "WEEKLY", firstDate: first, lastDate: first });

      expectStatus(await send(testKey, r.id, { dueDate: first }), 201);
      server.clock.advance(7 * 86_400);
      const after = await send(testKey, r.id, { dueDate: dateAfter(first, 7) });

      expectStatus(after, 400);
      expect(after.body.message).toContain("passa da data final");
    });

    test("when a cycle already has a live charge, then a second is refused; once it is cancelled, the cycle takes a new one", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey);
      const first = await cycleCharge(testKey, r);

      const twice = await send(testKey, r.id, { dueDate: r.firstDate });
      expectStatus(twice, 400);
      expect(twice.body.message).toBe(`O ciclo de ${r.firstDate} já tem uma cobrança: ${first.id} (WAITING_PAYMENT).`);
      expectStatus(await api(testKey).POST("/api/v1/transactions/{id}/cancel", byId(first.id)), 200);
      expectStatus(await send(testKey, r.id, { dueDate: r.firstDate }), 201);
    });

    test("when the recurrence is not approved, then 400 REQUEST_ERROR", async () => {
      const { testKey } = await server.newAccount();
      const made = await api(testKey).POST("/api/v1/recurrences", {
        body: recurrenceBody({ firstDate: dateAfter(today(), 5) }),
      });
      expectStatus(made, 201);

      const res = await send(testKey, made.body.id, { dueDate: made.body.firstDate });

      expectStatus(res, 400);
      expect(res.body.message).toBe("A recorrência não está aprovada: status atual CREATED.");
    });

    test("when the amount breaks the recurrence's terms, then 400: another fixed amount, none for a variable one, or above the payer's ceiling", async () => {
      const { testKey } = await server.newAccount();
      const fixed = await approved(testKey);
      const made = await api(testKey).POST("/api/v1/recurrences", {
        body: recurrenceBody({ firstDate: dateAfter(today(), 5), amountCents: undefined, minimumAmountCents: 1000 }),
      });
      expectStatus(made, 201);
      const ceiling = await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/approve", {
        ...byId(made.body.id),
        body: { payerMaximumAmountCents: 10_000 },
      });
      expectStatus(ceiling, 200);

      const other = await send(testKey, fixed.id, { dueDate: fixed.firstDate, amountCents: 5000 });
      const none = await send(testKey, made.body.id, { dueDate: made.body.firstDate });
      const above = await send(testKey, made.body.id, { dueDate: made.body.firstDate, amountCents: 10_001 });
      const within = await send(testKey, made.body.id, { dueDate: made.body.firstDate, amountCents: 10_000 });

      expectStatus(other, 400);
      expect(other.body.code).toBe("REQUEST_ERROR");
      expectStatus(none, 400);
      expect(none.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "amountCents" }] });
      expectStatus(above, 400);
      expect(above.body.message).toContain("R$ 100,00");
      expectStatus(within, 201);
      expect(within.body.amountCents).toBe(10_000);
    });
  });

  describe("the settlement date, on the calendar of 2026-10-04", () => {
    const fresh = serverOn(store);

    test.each([
      { name: "a Saturday before a holiday Monday", due: "2026-10-10", adjust: true, settles: "2026-10-13" },
      { name: "the 12 October holiday", due: "2026-10-12", adjust: true, settles: "2026-10-13" },
      { name: "a Saturday, without the adjustment", due: "2026-10-10", adjust: false, settles: "2026-10-10" },
    ])("when the due date is $name, then the attempt settles on $settles", async ({ due, adjust, settles }) => {
      const { testKey } = await fresh.newAccount();
      const key = publicApi(fresh.baseUrl, { key: testKey });
      const made = await key.POST("/api/v1/recurrences", { body: recurrenceBody({ firstDate: due }) });
      expectStatus(made, 201);
      expectStatus(
        await key.POST("/api/v1/sandbox/recurrences/{id}/approve", { ...byId(made.body.id), body: {} }),
        200,
      );

      const res = await key.POST("/api/v1/recurrences/{id}/charges", {
        ...byId(made.body.id),
        body: { dueDate: due, adjustToBusinessDay: adjust },
      });

      expectStatus(res, 201);
      expect(res.body.dueDate).toBe(due);
      expect(res.body.attempts?.[0]?.settlementDate).toBe(settles);
      expect(res.body.expiresAt).toBe(`${dateAfter(settles, 1)}T03:00:00.000Z`);
    });
  });

  describe("attempts", () => {
    test("when the attempt is PAID, then the charge is PAID and credited like any Pix charge: pending for the release period, then refundable and disputable", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey);
      const charge = await cycleCharge(testKey, r);
      const before = await balance(testKey);

      const paid = await settled(testKey, charge.id, { outcome: "PAID" });

      expect(paid).toMatchObject({ status: "PAID", paidAt: paid.updatedAt });
      expect(paid.attempts?.[0]).toMatchObject({ status: "PAID", reasonCode: null });
      expect(paid.attempts?.[0]?.endToEndId).toMatch(/^E00000000\d{12}[A-Za-z0-9]{11}$/);
      expect((await balance(testKey)).pendingCents).toBe(before.pendingCents + 4910);
      expect((await eventTypes(testKey))[0]).toBe("transaction.paid");
      expectStatus(await api(testKey).POST("/api/v1/sandbox/balance/release"), 200);
      const refund = await api(testKey).POST("/api/v1/transactions/{id}/refunds", {
        ...byId(charge.id),
        body: { amountCents: 1000 },
      });
      expectStatus(refund, 201);
      const dispute = await api(testKey).POST("/api/v1/sandbox/transactions/{id}/dispute", {
        ...byId(charge.id),
        body: { amountCents: 2000 },
      });
      expectStatus(dispute, 201);
      expect(dispute.body.dispute).toMatchObject({ status: "OPEN", amountCents: 2000 });
      expect(await balance(testKey)).toMatchObject({ availableCents: 4910 - 1000 - 2000, blockedCents: 2000 });
    });

    test("when attempts fail for insufficient balance under RETRY_3_IN_7_DAYS, then a retry follows each on the next day, three at most, and then the charge is FAILED", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey, { retryPolicy: "RETRY_3_IN_7_DAYS" });
      const charge = await cycleCharge(testKey, r);
      const settlement = charge.attempts?.[0]?.settlementDate as string;

      const first = await settled(testKey, charge.id, { outcome: "FAILED", reasonCode: "AM04" });

      expect(first.status).toBe("WAITING_PAYMENT");
      expect(first.attempts).toMatchObject([
        {
          type: "SCHEDULED",
          status: "FAILED",
          reasonCode: "AM04",
          reason: "Saldo ou limite insuficiente na conta do pagador.",
        },
        { type: "RETRY", status: "SCHEDULED", settlementDate: dateAfter(settlement, 1), reasonCode: null },
      ]);
      expect((await eventTypes(testKey))[0]).toBe("recurring_charge.retrying");
      expect((await readRecurrence(testKey, r.id)).simulatedDate).toBe(settlement);
      await settled(testKey, charge.id, { outcome: "FAILED", reasonCode: "AM04" });
      await settled(testKey, charge.id, { outcome: "FAILED", reasonCode: "AM04" });
      const last = await settled(testKey, charge.id, { outcome: "FAILED", reasonCode: "AM04" });
      expect(last.status).toBe("FAILED");
      expect(last.attempts?.map((a) => [a.type, a.status, a.settlementDate])).toEqual([
        ["SCHEDULED", "FAILED", settlement],
        ["RETRY", "FAILED", dateAfter(settlement, 1)],
        ["RETRY", "FAILED", dateAfter(settlement, 2)],
        ["RETRY", "FAILED", dateAfter(settlement, 3)],
      ]);
      expect((await eventTypes(testKey)).slice(0, 4)).toEqual([
        "recurring_charge.failed",
        "recurring_charge.retrying",
        "recurring_charge.retrying",
        "recurring_charge.retrying",
      ]);
      const again = await settle(testKey, charge.id, { outcome: "PAID" });
      expectStatus(again, 400);
      expect(again.body.message).toBe("A cobrança não tem tentativa agendada: status atual FAILED.");
      expect((await readRecurrence(testKey, r.id)).status).toBe("APPROVED");
    });

    test("when a retry is paid, then the charge is PAID with the failed attempt kept", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey, { retryPolicy: "RETRY_3_IN_7_DAYS" });
      const charge = await cycleCharge(testKey, r);
      await settled(testKey, charge.id, { outcome: "FAILED", reasonCode: "AM04" });

      const paid = await settled(testKey, charge.id, { outcome: "PAID" });

      expect(paid.status).toBe("PAID");
      expect(paid.attempts?.map((a) => a.status)).toEqual(["FAILED", "PAID"]);
    });

    test.each([
      {
        name: "the account is closed (AC05) under RETRY_3_IN_7_DAYS",
        retryPolicy: "RETRY_3_IN_7_DAYS" as const,
        code: "AC05" as const,
      },
      { name: "the balance is short (AM04) under NO_RETRY", retryPolicy: "NO_RETRY" as const, code: "AM04" as const },
    ])(
      "when $name, then the charge is FAILED at once and recurring_charge.failed is sent",
      async ({ retryPolicy, code }) => {
        const { testKey } = await server.newAccount();
        const r = await approved(testKey, { retryPolicy });
        const charge = await cycleCharge(testKey, r);

        const failed = await settled(testKey, charge.id, { outcome: "FAILED", reasonCode: code });

        expect(failed.status).toBe("FAILED");
        expect(failed.attempts).toHaveLength(1);
        expect(failed.attempts?.[0]).toMatchObject({ status: "FAILED", reasonCode: code });
        expect((await eventTypes(testKey))[0]).toBe("recurring_charge.failed");
      },
    );

    test.each([
      { name: "PAID with a reason code", body: { outcome: "PAID" as const, reasonCode: "AM04" as const } },
      { name: "FAILED without one", body: { outcome: "FAILED" as const } },
    ])(
      "when an attempt is settled $name, then 400 VALIDATION_ERROR on reasonCode and nothing changes",
      async ({ body }) => {
        const { testKey } = await server.newAccount();
        const charge = await cycleCharge(testKey, await approved(testKey));

        const res = await settle(testKey, charge.id, body);

        expectStatus(res, 400);
        expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "reasonCode" }] });
        const read = await api(testKey).GET("/api/v1/transactions/{id}", byId(charge.id));
        expectStatus(read, 200);
        expect(read.body).toEqual(charge);
      },
    );

    test("when a cycle charge is paid through the charges' sandbox pay, then 400: only its attempt debits it", async () => {
      const { testKey } = await server.newAccount();
      const charge = await cycleCharge(testKey, await approved(testKey));
      const res = await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id));
      expectStatus(res, 400);
      expect(res.body.message).toContain("settle-attempt");
    });

    test("when an attempt is settled on a charge of no recurrence, then 400 REQUEST_ERROR", async () => {
      const { testKey } = await server.newAccount();
      const r = await api(testKey).POST("/api/v1/recurrences", {
        body: recurrenceBody({ journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } }),
      });
      expectStatus(r, 201);
      const res = await settle(testKey, r.body.initialTransactionId as string, { outcome: "PAID" });
      expectStatus(res, 400);
      expect(res.body.message).toBe("A cobrança não tem tentativa agendada: status atual WAITING_PAYMENT.");
    });
  });

  describe("the merchant's cancellation of a cycle charge", () => {
    test("when it is cancelled before the day of its attempt, then CANCELLED with its attempt, and recurring_charge.cancelled", async () => {
      const { testKey } = await server.newAccount();
      const charge = await cycleCharge(testKey, await approved(testKey));

      const res = await api(testKey).POST("/api/v1/transactions/{id}/cancel", byId(charge.id));

      expectStatus(res, 200);
      expect(res.body.status).toBe("CANCELLED");
      expect(res.body.attempts?.[0]?.status).toBe("CANCELLED");
      expect((await eventTypes(testKey))[0]).toBe("recurring_charge.cancelled");
    });

    test("when the day of its first attempt has come, then it can no longer be cancelled", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey, { retryPolicy: "RETRY_3_IN_7_DAYS" }, 3);
      const charge = await cycleCharge(testKey, r, r.firstDate);
      const first = charge.attempts?.[0]?.settlementDate as string;
      server.clock.set(`${first}T12:00:00.000Z`);

      const res = await api(testKey).POST("/api/v1/transactions/{id}/cancel", byId(charge.id));

      expectStatus(res, 400);
      expect(res.body.message).toBe(
        `A cobrança do ciclo só pode ser cancelada até o dia anterior à primeira tentativa (${first}).`,
      );
    });

    test("when the recurrence is cancelled, then its waiting cycle charges are cancelled with it and paid ones stay paid", async () => {
      const { testKey } = await server.newAccount();
      const r = await approved(testKey, { periodicity: "WEEKLY" }, 3);
      const paid = await cycleCharge(testKey, r, r.firstDate);
      await settled(testKey, paid.id, { outcome: "PAID" });
      const waiting = await cycleCharge(testKey, r, dateAfter(r.firstDate, 7));

      const res = await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/cancel-by-payer", {
        ...byId(r.id),
        body: {},
      });

      expectStatus(res, 200);
      const status = async (id: string) => {
        const read = await api(testKey).GET("/api/v1/transactions/{id}", byId(id));
        expectStatus(read, 200);
        return read.body.status;
      };
      expect(await status(paid.id)).toBe("PAID");
      expect(await status(waiting.id)).toBe("CANCELLED");
      expect((await eventTypes(testKey)).slice(0, 2)).toEqual(["recurrence.cancelled", "recurring_charge.cancelled"]);
    });
  });
}

for (const store of eachStore("recurring_charges")) {
  store.describe(`cycle charges on the ${store.name} store`, () => cycleSuite(store));
}
