import { parsePix } from "pix-utils";
import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { parseBrCode } from "../../src/pix/brcode.js";
import { recurrenceLocation } from "../../src/pix/recurrence-brcode.js";
import { brasiliaDate } from "../../src/domain/payments/index.js";
import { byId, type ErrorBody, expectStatus, publicApi, rawCall } from "../harness.js";
import { dateAfter, recurrenceBody, type CreateRecurrenceRequest } from "../support/recurrences.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// Recurrences (Pix Automático), the payer's authorisation, through the real HTTP stack on both
// stores: creation (journeys 2 and 3), approval, rejection, expiry and cancellation by either side,
// with their history and their events.

type Recurrence = components["schemas"]["Recurrence"];

function recurrenceSuite(store: StoreUnderTest) {
  const server = serverOn(store);
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const today = () => brasiliaDate(server.clock.now());

  async function create(key: string, overrides: Partial<CreateRecurrenceRequest> = {}): Promise<Recurrence> {
    const res = await api(key).POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate: dateAfter(today(), 31), ...overrides }),
    });
    expectStatus(res, 201);
    return res.body;
  }
  const read = async (key: string, id: string) => {
    const res = await api(key).GET("/api/v1/recurrences/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };
  const sandbox = (key: string, action: "approve" | "reject" | "cancel-by-payer", id: string, body = {}) =>
    api(key).POST(`/api/v1/sandbox/recurrences/{id}/${action}` as "/api/v1/sandbox/recurrences/{id}/approve", {
      ...byId(id),
      body,
    });
  const eventTypes = async (key: string) => {
    const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(res, 200);
    return res.body.data.map((e) => `${e.type} ${e.data.object.id}`);
  };
  const charge = async (key: string, id: string) => {
    const res = await api(key).GET("/api/v1/transactions/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };

  describe("POST /api/v1/recurrences", () => {
    test("when a journey 2 recurrence is created, then 201 CREATED with its terms, a QR code whose field 80 names its hosted page, and recurrence.created", async () => {
      const { testKey } = await server.newAccount();

      const made = await create(testKey, { retryPolicy: "RETRY_3_IN_7_DAYS", automaticCharges: true });

      expect(made).toMatchObject({
        status: "CREATED",
        journey: "JOURNEY_2",
        contractReference: "ACADEMIA-2026-0042",
        description: "Mensalidade Academia Forma",
        periodicity: "MONTHLY",
        lastDate: null,
        amountType: "FIXED",
        amountCents: 4990,
        minimumAmountCents: null,
        payerMaximumAmountCents: null,
        retryPolicy: "RETRY_3_IN_7_DAYS",
        automaticCharges: true,
        initialTransactionId: null,
        approvedAt: null,
        rejection: null,
        cancellation: null,
        simulatedDate: null,
        livemode: false,
        metadata: { planId: "mensal-basico" },
      });
      expect(made.id).toMatch(/^rec_[A-Za-z0-9]{20}$/);
      expect(made.payer).toMatchObject({ name: "Maria da Silva Santos", documentType: "CPF", document: "52998224725" });
      expect(made.payer.id).toMatch(/^cus_/);
      expect(made.url).toBe(`https://pix.example.test/checkout/recurrences/${made.id}`);
      expect(recurrenceLocation(made.pix.copyPaste)).toBe(`pix.example.test/checkout/recurrences/${made.id}`);
      expect(parsePix(made.pix.copyPaste)).toMatchObject({
        type: "RECURRENCE",
        urlRec: `pix.example.test/checkout/recurrences/${made.id}`,
      });
      const parsed = parseBrCode(made.pix.copyPaste);
      expect(parsed).toMatchObject({ crcValid: true, pixKey: null, amountCents: null, txid: "***" });
      expect(parsed.merchantName).toBe("LOJA EXEMPLO LTDA");
      expect(made.pix.qrCode).toBe(made.pix.copyPaste);
      expect(made.history).toEqual([{ status: "CREATED", at: made.createdAt }]);
      expect(made.expiresAt).toBe(new Date(server.clock.now().getTime() + 86_400_000).toISOString());
      expect(await read(testKey, made.id)).toEqual(made);
      expect(await eventTypes(testKey)).toEqual([`recurrence.created ${made.id}`]);
    });

    test("when a journey 3 recurrence is created, then its immediate charge waits for payment with recurrenceId and the same code, which carries the charge's amount and txid and field 80", async () => {
      const { testKey } = await server.newAccount();

      const made = await create(testKey, { journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } });

      expect(made.initialTransactionId).toMatch(/^txn_/);
      const first = await charge(testKey, made.initialTransactionId as string);
      expect(first).toMatchObject({
        status: "WAITING_PAYMENT",
        amountCents: 4990,
        description: "Mensalidade Academia Forma",
        recurrenceId: made.id,
        expiresAt: made.expiresAt,
        customer: made.payer,
      });
      expect(first).not.toHaveProperty("attempts");
      expect(first.pix.copyPaste).toBe(made.pix.copyPaste);
      expect(parseBrCode(made.pix.copyPaste)).toMatchObject({
        crcValid: true,
        amountCents: 4990,
        txid: (made.initialTransactionId as string).replace("_", ""),
      });
      expect(parsePix(made.pix.copyPaste)).toMatchObject({
        transactionAmount: 49.9,
        txid: (made.initialTransactionId as string).replace("_", ""),
        urlRec: `pix.example.test/checkout/recurrences/${made.id}`,
      });
    });

    test.each([
      { name: "a first date before today", body: { firstDate: "2026-10-03" }, field: "firstDate" },
      {
        name: "a last date before the first",
        body: { lastDate: "2026-11-01", firstDate: "2026-11-04" },
        field: "lastDate",
      },
      { name: "a minimum with a fixed amount", body: { minimumAmountCents: 1000 }, field: "minimumAmountCents" },
      {
        name: "automatic charges without a fixed amount",
        body: { amountCents: undefined, automaticCharges: true },
        field: "automaticCharges",
      },
      { name: "journey 3 without its payment", body: { journey: "JOURNEY_3" as const }, field: "initialPayment" },
      { name: "journey 2 with a payment", body: { initialPayment: { amountCents: 4990 } }, field: "initialPayment" },
    ])("when it has $name, then 400 VALIDATION_ERROR on $field and nothing is created", async ({ body, field }) => {
      const { testKey } = await server.newAccount();

      const res = await api(testKey).POST("/api/v1/recurrences", {
        body: recurrenceBody({ firstDate: "2026-11-04", ...body }),
      });

      expectStatus(res, 400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: field }] });
      const list = await api(testKey).GET("/api/v1/recurrences");
      expectStatus(list, 200);
      expect(list.body.data).toEqual([]);
      expect(await eventTypes(testKey)).toEqual([]);
    });

    test("when the payer's CPF fails its check digits, then 400 REQUEST_ERROR", async () => {
      const { testKey } = await server.newAccount();
      const res = await api(testKey).POST("/api/v1/recurrences", {
        body: recurrenceBody({ payer: { ...recurrenceBody().payer, document: "52998224724" } }),
      });
      expectStatus(res, 400);
      expect(res.body.code).toBe("REQUEST_ERROR");
    });

    test("when a date does not exist or is not a date, then 400 VALIDATION_ERROR (never 500)", async () => {
      const { testKey } = await server.newAccount();
      for (const firstDate of ["2026-02-30", "2026-13-01", "04/11/2026", "2026-11-04T00:00:00Z"]) {
        const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/recurrences", {
          key: testKey,
          body: { ...recurrenceBody(), firstDate },
        });
        expect(res.status, firstDate).toBe(400);
        expect(res.body.code).toBe("VALIDATION_ERROR");
      }
    });
  });

  describe("the payer's answer (sandbox)", () => {
    test("when the payer approves a journey 2 recurrence, then it is APPROVED with approvedAt and its history, and recurrence.approved is sent", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey);

      const res = await sandbox(testKey, "approve", made.id);

      expectStatus(res, 200);
      expect(res.body).toMatchObject({ status: "APPROVED", approvedAt: res.body.updatedAt });
      expect(res.body.history.map((h) => h.status)).toEqual(["CREATED", "APPROVED"]);
      expect(await read(testKey, made.id)).toEqual(res.body);
      expect((await eventTypes(testKey))[0]).toBe(`recurrence.approved ${made.id}`);
      const again = await sandbox(testKey, "approve", made.id);
      expectStatus(again, 400);
      expect(again.body.message).toBe("A recorrência não está aguardando aprovação: status atual APPROVED.");
    });

    test("when a variable recurrence is approved with the payer's ceiling, then the ceiling is kept; one below the minimum is refused", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey, { amountCents: undefined, minimumAmountCents: 5000 });
      expect(made.amountType).toBe("VARIABLE");

      const low = await sandbox(testKey, "approve", made.id, { payerMaximumAmountCents: 4999 });
      const ok = await sandbox(testKey, "approve", made.id, { payerMaximumAmountCents: 20000 });

      expectStatus(low, 400);
      expect(low.body.code).toBe("REQUEST_ERROR");
      expectStatus(ok, 200);
      expect(ok.body).toMatchObject({ status: "APPROVED", minimumAmountCents: 5000, payerMaximumAmountCents: 20000 });
    });

    test("when the payer pays a journey 3 recurrence's immediate charge, then the charge is PAID and the recurrence APPROVED in the same step; approving it in the sandbox instead is refused", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey, { journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } });
      const txn = made.initialTransactionId as string;

      const refused = await sandbox(testKey, "approve", made.id);
      const paid = await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(txn));

      expectStatus(refused, 400);
      expect(refused.body.message).toContain(`/api/v1/sandbox/transactions/${txn}/pay`);
      expectStatus(paid, 200);
      expect(paid.body.status).toBe("PAID");
      const approved = await read(testKey, made.id);
      expect(approved).toMatchObject({ status: "APPROVED", approvedAt: paid.body.paidAt });
      expect((await eventTypes(testKey)).slice(0, 2)).toEqual([
        `recurrence.approved ${made.id}`,
        `transaction.paid ${txn}`,
      ]);
      const balance = await api(testKey).GET("/api/v1/balance");
      expectStatus(balance, 200);
      expect(balance.body.pendingCents).toBe(4990 - 80);
    });

    test.each([{ journey: "JOURNEY_2" as const }, { journey: "JOURNEY_3" as const }])(
      "when the payer rejects a $journey recurrence, then it is REJECTED with the code and reason, a waiting immediate charge is cancelled, and recurrence.rejected is sent",
      async ({ journey }) => {
        const { testKey } = await server.newAccount();
        const made = await create(testKey, {
          journey,
          ...(journey === "JOURNEY_3" ? { initialPayment: { amountCents: 4990 } } : {}),
        });

        const res = await sandbox(testKey, "reject", made.id, { code: "AP14", reason: "Recusada pelo banco." });

        expectStatus(res, 200);
        expect(res.body).toMatchObject({
          status: "REJECTED",
          rejection: { code: "AP14", reason: "Recusada pelo banco." },
          approvedAt: null,
        });
        expect(res.body.history.map((h) => h.status)).toEqual(["CREATED", "REJECTED"]);
        expect((await eventTypes(testKey))[0]).toBe(`recurrence.rejected ${made.id}`);
        if (made.initialTransactionId) {
          expect((await charge(testKey, made.initialTransactionId)).status).toBe("CANCELLED");
          const pay = await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(made.initialTransactionId));
          expectStatus(pay, 400);
        }
      },
    );

    test("when the payer rejects with no body fields, then the defaults are AP13 and the payer's refusal", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey);
      const res = await sandbox(testKey, "reject", made.id);
      expectStatus(res, 200);
      expect(res.body.rejection).toEqual({ code: "AP13", reason: "Autorização recusada pelo pagador." });
    });
  });

  describe("expiry", () => {
    test("when expiresAt passes unapproved, then it reads EXPIRED, lists under status=EXPIRED only, and can no longer be approved", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey, { expiresAt: new Date(server.clock.now().getTime() + 60_000).toISOString() });
      const listed = async (status: "CREATED" | "EXPIRED") => {
        const res = await api(testKey).GET("/api/v1/recurrences", { params: { query: { status } } });
        expectStatus(res, 200);
        return res.body.data.map((r) => r.id);
      };
      expect(await listed("CREATED")).toEqual([made.id]);

      server.clock.advance(61);

      expect((await read(testKey, made.id)).status).toBe("EXPIRED");
      expect(await listed("EXPIRED")).toEqual([made.id]);
      expect(await listed("CREATED")).toEqual([]);
      const approve = await sandbox(testKey, "approve", made.id);
      expectStatus(approve, 400);
      expect(approve.body.message).toBe("A recorrência não está aguardando aprovação: status atual EXPIRED.");
    });

    test("when the sandbox expires a journey 3 recurrence, then it is EXPIRED now, its immediate charge expires with it, and recurrence.expired is sent", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey, { journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } });

      const res = await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/expire", byId(made.id));

      expectStatus(res, 200);
      const at = server.clock.now().toISOString();
      expect(res.body).toMatchObject({ status: "EXPIRED", expiresAt: at });
      expect(res.body.history.map((h) => h.status)).toEqual(["CREATED", "EXPIRED"]);
      expect(await charge(testKey, made.initialTransactionId as string)).toMatchObject({
        status: "EXPIRED",
        expiresAt: at,
      });
      expect((await eventTypes(testKey))[0]).toBe(`recurrence.expired ${made.id}`);
    });
  });

  describe("cancellation", () => {
    test("when the merchant cancels an approved recurrence, then it is CANCELLED by MERCHANT with SLCR, and a second cancel is refused", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey);
      expectStatus(await sandbox(testKey, "approve", made.id), 200);

      const res = await api(testKey).POST("/api/v1/recurrences/{id}/cancel", byId(made.id));
      const again = await api(testKey).POST("/api/v1/recurrences/{id}/cancel", byId(made.id));

      expectStatus(res, 200);
      expect(res.body).toMatchObject({
        status: "CANCELLED",
        cancellation: { requestedBy: "MERCHANT", code: "SLCR", reason: "Cancelada pelo recebedor." },
      });
      expect(res.body.history.map((h) => h.status)).toEqual(["CREATED", "APPROVED", "CANCELLED"]);
      expectStatus(again, 400);
      expect(again.body.message).toBe("A recorrência não pode ser cancelada: status atual CANCELLED.");
      expect((await eventTypes(testKey))[0]).toBe(`recurrence.cancelled ${made.id}`);
    });

    test.each([
      { name: "the payer", body: {}, expected: { requestedBy: "PAYER", code: "SLDB" } },
      {
        name: "the payer's bank, their account closed",
        body: { requestedBy: "PAYER_PSP", code: "ACCL", reason: "Conta encerrada." },
        expected: { requestedBy: "PAYER_PSP", code: "ACCL", reason: "Conta encerrada." },
      },
    ])("when $name cancels, then the cancellation says so", async ({ body, expected }) => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey);
      expectStatus(await sandbox(testKey, "approve", made.id), 200);

      const res = await sandbox(testKey, "cancel-by-payer", made.id, body);

      expectStatus(res, 200);
      expect(res.body.status).toBe("CANCELLED");
      expect(res.body.cancellation).toMatchObject(expected);
    });

    test("when a rejected recurrence is cancelled by either side, then 400 REQUEST_ERROR and nothing changes", async () => {
      const { testKey } = await server.newAccount();
      const made = await create(testKey);
      const rejected = await sandbox(testKey, "reject", made.id);
      expectStatus(rejected, 200);

      expectStatus(await api(testKey).POST("/api/v1/recurrences/{id}/cancel", byId(made.id)), 400);
      expectStatus(await sandbox(testKey, "cancel-by-payer", made.id), 400);
      expect(await read(testKey, made.id)).toEqual(rejected.body);
    });
  });

  describe("reads", () => {
    test("when recurrences are listed, then newest first with cursors, filtered by status and payer, and never another account's or mode's", async () => {
      const { testKey } = await server.newAccount();
      const other = await server.newAccount();
      const a = await create(testKey);
      const b = await create(testKey, {
        payer: { ...recurrenceBody().payer, document: "11222333000181", documentType: "CNPJ" },
      });
      const c = await create(testKey);
      expectStatus(await sandbox(testKey, "approve", c.id), 200);
      await create(other.testKey);

      const page = async (query: Record<string, string | number>) => {
        const res = await api(testKey).GET("/api/v1/recurrences", { params: { query } });
        expectStatus(res, 200);
        return { ids: res.body.data.map((r) => r.id), hasMore: res.body.hasMore };
      };

      expect(await page({})).toEqual({ ids: [c.id, b.id, a.id], hasMore: false });
      expect(await page({ limit: 2 })).toEqual({ ids: [c.id, b.id], hasMore: true });
      expect(await page({ limit: 2, startingAfter: b.id })).toEqual({ ids: [a.id], hasMore: false });
      expect(await page({ status: "APPROVED" })).toEqual({ ids: [c.id], hasMore: false });
      expect(await page({ customerId: b.payer.id })).toEqual({ ids: [b.id], hasMore: false });
      const foreign = await api(testKey).GET("/api/v1/recurrences/{id}", byId((await create(other.testKey)).id));
      expectStatus(foreign, 404);
      const cursor = await api(testKey).GET("/api/v1/recurrences", { params: { query: { startingAfter: "rec_x" } } });
      expectStatus(cursor, 400);
    });

    test("when a production key reads a test recurrence, then 404; a production key on a sandbox route, 403 TEST_MODE_ONLY", async () => {
      const { testKey, liveKey } = await server.newAccount({ verified: true });
      const made = await create(testKey);

      const read404 = await api(liveKey as string).GET("/api/v1/recurrences/{id}", byId(made.id));
      const sandbox403 = await sandbox(liveKey as string, "approve", made.id);

      expectStatus(read404, 404);
      expectStatus(sandbox403, 403);
      expect(sandbox403.body.code).toBe("TEST_MODE_ONLY");
      expect((await read(testKey, made.id)).status).toBe("CREATED");
    });
  });
}

for (const store of eachStore("recurrences")) {
  store.describe(`recurrences on the ${store.name} store`, () => recurrenceSuite(store));
}
