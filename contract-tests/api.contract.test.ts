import { afterAll, describe, expect, inject, test } from "vitest";
import { chargeBody } from "../server/test/support/fixtures.js";
import { recurrenceBody } from "../server/test/support/recurrences.js";
import { addDays, brasiliaDate } from "../server/src/domain/payments/index.js";
import { checkResponse, documentedOperations } from "./support/openapi.js";
import type { Target } from "./support/targets.js";

// One suite, every target. Each call is checked against the OpenAPI document (declared status,
// schema-valid body, required headers). Assertions only a real implementation can satisfy (state,
// exact codes of cases the mock cannot tell apart) are guarded by `target.real`; on the mock
// those tests are skipped, not passed.

const targets = inject("targets");

interface Call {
  status: number;
  body: any;
  headers: Headers;
}

const covered = new Map<string, Set<string>>();

function contract(target: Target) {
  const seen = covered.get(target.name) ?? new Set<string>();
  covered.set(target.name, seen);
  return async (
    operationId: string,
    method: string,
    path: string,
    options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Call> => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? target.keys.full : options.key;
    if (key) headers["x-api-key"] = key;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    const problems = checkResponse(operationId, res.status, res.headers, body);
    expect(problems, `${method} ${path} → ${res.status}: ${text.slice(0, 300)}`).toEqual([]);
    if (res.status >= 400) {
      expect(body).toMatchObject({ ok: false });
      expect(typeof body.message).toBe("string");
    }
    seen.add(`${operationId}:${res.status}`);
    return { status: res.status, body, headers: res.headers };
  };
}

describe.each(targets)("contract: $name", (target) => {
  const call = contract(target);
  const realOnly = test.skipIf(!target.real);

  describe("probes", () => {
    test("GET /health without a key → 200", async () => {
      const res = await call("getHealth", "GET", "/health", { key: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
    });
    test("GET /ready without a key → 200", async () => {
      const res = await call("getReadiness", "GET", "/ready", { key: null });
      expect(res.status).toBe(200);
      // With a bank connected, the body also reports it (`bank`); the mock answers the example that has one.
      expect(res.body).toMatchObject({ ok: true });
    });
  });

  describe("createPixCharge", () => {
    test("valid charge → 201 Transaction WAITING_PAYMENT", async () => {
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe("WAITING_PAYMENT");
    });
    test("amountCents 499 → 400 VALIDATION_ERROR on amountCents", async () => {
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", {
        body: chargeBody({ amountCents: 499 }),
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain("amountCents");
    });
    test.each([
      { operationId: "createPixCharge", path: "/api/v1/charges/pix", body: chargeBody({ amountCents: 1e12 }) },
      {
        operationId: "createPaymentLink",
        path: "/api/v1/payment-links",
        body: { amountCents: 1e12, description: "Curso online de fotografia" },
      },
      {
        operationId: "createWithdrawal",
        path: "/api/v1/withdrawals",
        body: { amountCents: 1e12, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" },
      },
    ])("$operationId with amountCents above 999 999 999 999 → 400 (the spec's maximum)", async (c) => {
      const res = await call(c.operationId, "POST", c.path, { body: c.body });
      expect(res.status).toBe(400);
      // The mock answers its first documented 400 example; the server names the field.
      if (target.real) {
        expect(res.body.code).toBe("VALIDATION_ERROR");
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain("amountCents");
      }
    });
    test("unknown body field → 400 (objects are sealed)", async () => {
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody({ surprise: 1 }) });
      expect(res.status).toBe(400);
    });
    test("no key → 401", async () => {
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", { key: null, body: chargeBody() });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("UNAUTHORIZED");
    });
    realOnly("invalid CPF check digits → 400 REQUEST_ERROR", async () => {
      const body = chargeBody({ customer: { ...chargeBody().customer, document: "52998224724" } });
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("REQUEST_ERROR");
    });
    realOnly("key without charges:write → 403 API_KEY_PERMISSION", async () => {
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", {
        key: target.keys.none,
        body: chargeBody(),
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("API_KEY_PERMISSION");
    });
    realOnly("same idempotency-key, other body → 409", async () => {
      const headers = { "idempotency-key": `contract-${Date.now()}` };
      await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody(), headers });
      const res = await call("createPixCharge", "POST", "/api/v1/charges/pix", {
        body: chargeBody({ amountCents: 9990 }),
        headers,
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    });
  });

  describe("transactions", () => {
    test("listTransactions → 200 page", async () => {
      const res = await call("listTransactions", "GET", "/api/v1/transactions?limit=5&status=WAITING_PAYMENT");
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
    });
    test("listTransactions limit=101 → 400", async () => {
      const res = await call("listTransactions", "GET", "/api/v1/transactions?limit=101");
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    });
    test("listTransactions without key → 401", async () => {
      expect((await call("listTransactions", "GET", "/api/v1/transactions", { key: null })).status).toBe(401);
    });
    test("getTransaction → 200", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      const res = await call("getTransaction", "GET", `/api/v1/transactions/${created.body.id}`);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(created.body.id);
    });
    test("getTransaction without key → 401", async () => {
      expect((await call("getTransaction", "GET", "/api/v1/transactions/txn_x", { key: null })).status).toBe(401);
    });
    realOnly("getTransaction unknown id → 404 NOT_FOUND", async () => {
      const res = await call("getTransaction", "GET", "/api/v1/transactions/txn_doesnotexist00000000");
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    });
    realOnly("getTransaction with a production key for a test charge → 404", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      const res = await call("getTransaction", "GET", `/api/v1/transactions/${created.body.id}`, {
        key: target.keys.live,
      });
      expect(res.status).toBe(404);
    });
    test("cancelTransaction → 200", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      const res = await call("cancelTransaction", "POST", `/api/v1/transactions/${created.body.id}/cancel`);
      expect(res.status).toBe(200);
    });
    realOnly("cancelTransaction twice → 400 REQUEST_ERROR; unknown → 404", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      await call("cancelTransaction", "POST", `/api/v1/transactions/${created.body.id}/cancel`);
      const again = await call("cancelTransaction", "POST", `/api/v1/transactions/${created.body.id}/cancel`);
      expect(again.status).toBe(400);
      expect(again.body.code).toBe("REQUEST_ERROR");
      expect((await call("cancelTransaction", "POST", "/api/v1/transactions/txn_nope/cancel")).status).toBe(404);
    });
  });

  describe("simulatePayment", () => {
    test("WAITING_PAYMENT test charge → 200 PAID", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      const res = await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("PAID");
    });
    realOnly("paying twice → 400 REQUEST_ERROR; production key → 403 TEST_MODE_ONLY; unknown → 404", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`);
      const twice = await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`);
      expect(twice.body.code).toBe("REQUEST_ERROR");
      const live = await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`, {
        key: target.keys.live,
      });
      expect(live.status).toBe(403);
      expect(live.body.code).toBe("TEST_MODE_ONLY");
      expect((await call("simulatePayment", "POST", "/api/v1/sandbox/transactions/txn_nope/pay")).status).toBe(404);
    });
  });

  describe("createDueDateCharge", () => {
    // Due on Friday 2030-12-13 (as the document's example): 2 % fine, 1 % a month, R$ 10,00 off until Wednesday.
    const dueDateBody = {
      ...chargeBody({ amountCents: 50000 }),
      dueDate: "2030-12-13",
      fine: { mode: "PERCENTAGE", rateBps: 200 },
      interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2030-12-11", amountCents: 1000 }] },
    };
    test("createDueDateCharge → 201 with its terms and the amount due today", async () => {
      const res = await call("createDueDateCharge", "POST", "/api/v1/charges/due-date", { body: dueDateBody });
      expect(res.status).toBe(201);
      expect(res.body.dueDateCharge.terms.dueDate).toBe("2030-12-13");
    });
    realOnly("paid 10 days late → 200 with the fine and the interest (51 167)", async () => {
      const created = await call("createDueDateCharge", "POST", "/api/v1/charges/due-date", { body: dueDateBody });
      const res = await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`, {
        body: { paymentDate: "2030-12-23" },
      });
      expect(res.status).toBe(200);
      expect(res.body.dueDateCharge.amountDue).toMatchObject({
        fineCents: 1000,
        interestCents: 167,
        finalCents: 51167,
      });
    });
    realOnly(
      "a discount date after the due date → 400 VALIDATION_ERROR; production key → 403 TEST_MODE_ONLY",
      async () => {
        const late = {
          ...dueDateBody,
          discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2030-12-16", amountCents: 1000 }] },
        };
        const refused = await call("createDueDateCharge", "POST", "/api/v1/charges/due-date", { body: late });
        expect(refused.status).toBe(400);
        expect(refused.body.errors).toEqual([
          { path: "discount.dates.0.date", message: "não pode ser posterior ao vencimento (2030-12-13)" },
        ]);
        const live = await call("createDueDateCharge", "POST", "/api/v1/charges/due-date", {
          body: dueDateBody,
          key: target.keys.live,
        });
        expect(live.status).toBe(403);
        expect(live.body.code).toBe("TEST_MODE_ONLY");
      },
    );
  });

  describe("payment links", () => {
    const link = { amountCents: 15000, description: "Curso online", maxPayments: 10 };
    test("createPaymentLink → 201", async () => {
      const res = await call("createPaymentLink", "POST", "/api/v1/payment-links", { body: link });
      expect(res.status).toBe(201);
      expect(res.body.active).toBe(true);
    });
    test("createPaymentLink with http returnUrl → 400", async () => {
      const res = await call("createPaymentLink", "POST", "/api/v1/payment-links", {
        body: { ...link, returnUrl: "http://loja.example.com.br" },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    });
    test("listPaymentLinks active=true → 200; active=maybe → 400", async () => {
      expect((await call("listPaymentLinks", "GET", "/api/v1/payment-links?active=true")).status).toBe(200);
      expect((await call("listPaymentLinks", "GET", "/api/v1/payment-links?active=maybe")).status).toBe(400);
    });
    test("getPaymentLink → 200; deactivatePaymentLink → 200 inactive", async () => {
      const created = await call("createPaymentLink", "POST", "/api/v1/payment-links", { body: link });
      expect((await call("getPaymentLink", "GET", `/api/v1/payment-links/${created.body.id}`)).status).toBe(200);
      const off = await call("deactivatePaymentLink", "POST", `/api/v1/payment-links/${created.body.id}/deactivate`);
      expect(off.status).toBe(200);
      expect(off.body.active).toBe(false);
    });
    realOnly("unknown link → 404 on get and deactivate", async () => {
      expect((await call("getPaymentLink", "GET", "/api/v1/payment-links/plk_nope")).status).toBe(404);
      expect((await call("deactivatePaymentLink", "POST", "/api/v1/payment-links/plk_nope/deactivate")).status).toBe(
        404,
      );
    });
  });

  describe("customers", () => {
    const customer = { name: "Padaria Pão Quente Ltda", document: "11.222.333/0001-81", email: "fin@pao.example.com" };
    test("upsertCustomer → 2xx Customer with digits-only document", async () => {
      const res = await call("upsertCustomer", "POST", "/api/v1/customers", { body: customer });
      expect([200, 201]).toContain(res.status);
      expect(res.body.document).toMatch(/^[0-9A-Z]+$/);
    });
    realOnly("upsertCustomer: new → 201, existing → 200", async () => {
      const fresh = { name: "Cliente Novo", document: "111.444.777-35" };
      const first = await call("upsertCustomer", "POST", "/api/v1/customers", { body: fresh, key: target.keys.live });
      const second = await call("upsertCustomer", "POST", "/api/v1/customers", { body: fresh, key: target.keys.live });
      expect([first.status, second.status]).toEqual([201, 200]);
      expect(second.body.id).toBe(first.body.id);
    });
    test("upsertCustomer name of 1 character → 400", async () => {
      const res = await call("upsertCustomer", "POST", "/api/v1/customers", { body: { ...customer, name: "A" } });
      expect(res.status).toBe(400);
    });
    realOnly("upsertCustomer with bad check digits → 400 REQUEST_ERROR", async () => {
      const res = await call("upsertCustomer", "POST", "/api/v1/customers", {
        body: { ...customer, document: "11.222.333/0001-82" },
      });
      expect(res.body.code).toBe("REQUEST_ERROR");
    });
    test("listCustomers by document → 200; limit=0 → 400", async () => {
      expect(
        (await call("listCustomers", "GET", `/api/v1/customers?document=${encodeURIComponent("11.222.333/0001-81")}`))
          .status,
      ).toBe(200);
      expect((await call("listCustomers", "GET", "/api/v1/customers?limit=0")).status).toBe(400);
    });
    test("getCustomer → 200; updateCustomer → 200; patching the document → 400", async () => {
      const created = await call("upsertCustomer", "POST", "/api/v1/customers", { body: customer });
      const id = created.body.id;
      expect((await call("getCustomer", "GET", `/api/v1/customers/${id}`)).status).toBe(200);
      const patched = await call("updateCustomer", "PATCH", `/api/v1/customers/${id}`, {
        body: { phone: "1133224455" },
      });
      expect(patched.status).toBe(200);
      const bad = await call("updateCustomer", "PATCH", `/api/v1/customers/${id}`, {
        body: { document: "52998224725" },
      });
      expect(bad.status).toBe(400);
    });
    realOnly("unknown customer → 404 on get and patch", async () => {
      expect((await call("getCustomer", "GET", "/api/v1/customers/cus_nope")).status).toBe(404);
      expect(
        (await call("updateCustomer", "PATCH", "/api/v1/customers/cus_nope", { body: { name: "Zé" } })).status,
      ).toBe(404);
    });
  });

  describe("balance and withdrawals", () => {
    test("getBalance → 200; without key → 401", async () => {
      expect((await call("getBalance", "GET", "/api/v1/balance")).status).toBe(200);
      expect((await call("getBalance", "GET", "/api/v1/balance", { key: null })).status).toBe(401);
    });
    test("createWithdrawal → 201; listWithdrawals → 200; getWithdrawal → 200", async () => {
      const created = await call("createWithdrawal", "POST", "/api/v1/withdrawals", {
        body: { amountCents: 1000, pixKey: "52998224725", pixKeyType: "CPF" },
      });
      expect(created.status).toBe(201);
      expect(created.body.pixKey).not.toBe("52998224725");
      expect((await call("listWithdrawals", "GET", "/api/v1/withdrawals?limit=10")).status).toBe(200);
      expect((await call("getWithdrawal", "GET", `/api/v1/withdrawals/${created.body.id}`)).status).toBe(200);
    });
    test("createWithdrawal amountCents 599 → 400", async () => {
      const res = await call("createWithdrawal", "POST", "/api/v1/withdrawals", {
        body: { amountCents: 599, pixKey: "52998224725", pixKeyType: "CPF" },
      });
      expect(res.status).toBe(400);
    });
    realOnly("more than the balance → 400 INSUFFICIENT_BALANCE; without withdrawals:write → 403", async () => {
      const body = { amountCents: 900_000_000, pixKey: "52998224725", pixKeyType: "CPF" };
      const res = await call("createWithdrawal", "POST", "/api/v1/withdrawals", { body });
      expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
      const denied = await call("createWithdrawal", "POST", "/api/v1/withdrawals", { body, key: target.keys.none });
      expect(denied.body.code).toBe("API_KEY_PERMISSION");
    });
    realOnly("same idempotency-key, other body → 409; unknown withdrawal → 404", async () => {
      const headers = { "idempotency-key": `saque-${Date.now()}` };
      const body = { amountCents: 700, pixKey: "52998224725", pixKeyType: "CPF" };
      await call("createWithdrawal", "POST", "/api/v1/withdrawals", { body, headers });
      const res = await call("createWithdrawal", "POST", "/api/v1/withdrawals", {
        body: { ...body, amountCents: 800 },
        headers,
      });
      expect(res.status).toBe(409);
      expect((await call("getWithdrawal", "GET", "/api/v1/withdrawals/wdr_nope")).status).toBe(404);
    });
  });

  describe("refunds", () => {
    /** A paid test charge (the target's test balance has money available for refunds). */
    async function paidCharge() {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`);
      return created.body.id as string;
    }
    test("createRefund → 201; listTransactionRefunds → 200; getRefund → 200", async () => {
      const id = await paidCharge();
      const created = await call("createRefund", "POST", `/api/v1/transactions/${id}/refunds`, {
        body: { amountCents: 1000, reason: "Produto devolvido" },
      });
      expect(created.status).toBe(201);
      expect(created.body.id).toMatch(/^rfd_/);
      const list = await call("listTransactionRefunds", "GET", `/api/v1/transactions/${id}/refunds?limit=5`);
      expect(list.status).toBe(200);
      const one = await call("getRefund", "GET", `/api/v1/refunds/${created.body.id}`);
      expect(one.status).toBe(200);
    });
    test("createRefund with a reason of 2 characters → 400; without key → 401", async () => {
      const bad = await call("createRefund", "POST", "/api/v1/transactions/txn_x/refunds", { body: { reason: "ok" } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe("VALIDATION_ERROR");
      const anonymous = await call("createRefund", "POST", "/api/v1/transactions/txn_x/refunds", {
        key: null,
        body: {},
      });
      expect(anonymous.status).toBe(401);
    });
    realOnly(
      "refund state: refundedAmountCents, REQUEST_ERROR past the amount, 404, 409, 403 without refunds:write",
      async () => {
        const id = await paidCharge();
        const headers = { "idempotency-key": `devolucao-${Date.now()}` };
        await call("createRefund", "POST", `/api/v1/transactions/${id}/refunds`, {
          body: { amountCents: 990 },
          headers,
        });
        expect((await call("getTransaction", "GET", `/api/v1/transactions/${id}`)).body.refundedAmountCents).toBe(990);
        const reused = await call("createRefund", "POST", `/api/v1/transactions/${id}/refunds`, {
          body: { amountCents: 991 },
          headers,
        });
        expect(reused.status).toBe(409);
        const tooMuch = await call("createRefund", "POST", `/api/v1/transactions/${id}/refunds`, {
          body: { amountCents: 8001 },
        });
        expect(tooMuch.body.code).toBe("REQUEST_ERROR");
        const failed = await call("createRefund", "POST", `/api/v1/transactions/${id}/refunds`, {
          body: { reason: "sandbox:falha" },
        });
        expect(failed.body.status).toBe("FAILED");
        expect((await call("getRefund", "GET", "/api/v1/refunds/rfd_nope")).status).toBe(404);
        expect(
          (await call("createRefund", "POST", "/api/v1/transactions/txn_nope/refunds", { body: {} })).body.code,
        ).toBe("NOT_FOUND");
        const denied = await call("createRefund", "POST", `/api/v1/transactions/${id}/refunds`, {
          key: target.keys.none,
          body: {},
        });
        expect(denied.body.code).toBe("API_KEY_PERMISSION");
      },
    );
  });

  describe("recurrences", () => {
    const post = (operationId: string, path: string, body?: unknown) =>
      call(operationId, "POST", path, body === undefined ? {} : { body });
    /** A test recurrence (journey 2, R$ 49,90 a month) from `firstDate`, approved when asked. */
    async function recurrence(firstDate: string, approve: boolean, overrides: Record<string, unknown> = {}) {
      const made = await post("createRecurrence", "/api/v1/recurrences", recurrenceBody({ firstDate, ...overrides }));
      expect(made.status).toBe(201);
      if (approve) {
        expect(
          (await post("simulateRecurrenceApproval", `/api/v1/sandbox/recurrences/${made.body.id}/approve`, {})).status,
        ).toBe(200);
      }
      return made.body as { id: string; createdAt: string; firstDate: string };
    }
    test("createRecurrence → 201; get, list → 200; approve, advance, reject, expire, cancel by either side → 200", async () => {
      const first = await recurrence("2030-01-31", true, { automaticCharges: true, retryPolicy: "RETRY_3_IN_7_DAYS" });
      expect((await call("getRecurrence", "GET", `/api/v1/recurrences/${first.id}`)).status).toBe(200);
      expect((await call("listRecurrences", "GET", "/api/v1/recurrences?status=APPROVED&limit=5")).status).toBe(200);
      expect((await post("simulateRecurrenceAdvance", `/api/v1/sandbox/recurrences/${first.id}/advance`)).status).toBe(
        200,
      );
      expect((await post("cancelRecurrence", `/api/v1/recurrences/${first.id}/cancel`)).status).toBe(200);
      for (const [operationId, action, body] of [
        ["simulateRecurrenceRejection", "reject", { code: "AP13" }],
        ["simulateRecurrenceExpiry", "expire", undefined],
        ["simulateRecurrenceCancellationByPayer", "cancel-by-payer", {}],
      ] as const) {
        const made = await recurrence("2030-01-31", false);
        expect((await post(operationId, `/api/v1/sandbox/recurrences/${made.id}/${action}`, body)).status).toBe(200);
      }
    });
    test("createRecurringCharge → 201 with recurrenceId and attempts; simulateRecurringAttempt → 200", async () => {
      const probe = await recurrence("2030-01-31", false);
      const firstDate = addDays(brasiliaDate(new Date(probe.createdAt)), 5);
      const approved = await recurrence(firstDate, true);
      const charge = await post("createRecurringCharge", `/api/v1/recurrences/${approved.id}/charges`, {
        dueDate: target.real ? firstDate : "2026-11-04",
      });
      expect(charge.status).toBe(201);
      expect(charge.body.attempts).toHaveLength(1);
      const settled = await post(
        "simulateRecurringAttempt",
        `/api/v1/sandbox/transactions/${charge.body.id}/settle-attempt`,
        {
          outcome: "FAILED",
          reasonCode: "AM04",
        },
      );
      expect(settled.status).toBe(200);
    });
    test("a date that does not exist → 400; no key → 401", async () => {
      const bad = await post("createRecurrence", "/api/v1/recurrences", recurrenceBody({ firstDate: "2030-02-30" }));
      expect(bad.status).toBe(400);
      const anonymous = await call("listRecurrences", "GET", "/api/v1/recurrences", { key: null });
      expect(anonymous.status).toBe(401);
    });
    realOnly("an unknown recurrence → 404; a cycle's charge outside its window → 400 REQUEST_ERROR", async () => {
      expect((await call("getRecurrence", "GET", "/api/v1/recurrences/rec_nope")).status).toBe(404);
      const approved = await recurrence("2030-01-31", true);
      const early = await post("createRecurringCharge", `/api/v1/recurrences/${approved.id}/charges`, {
        dueDate: "2030-01-31",
      });
      expect(early.body.code).toBe("REQUEST_ERROR");
    });
  });

  describe("sandbox lifecycle", () => {
    test("simulateExpiry → 200 EXPIRED", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      const res = await call("simulateExpiry", "POST", `/api/v1/sandbox/transactions/${created.body.id}/expire`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("EXPIRED");
    });
    test("simulateDispute → 201 with an OPEN dispute; simulateDisputeResolution → 200", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`);
      const opened = await call("simulateDispute", "POST", `/api/v1/sandbox/transactions/${created.body.id}/dispute`, {
        body: { amountCents: 1000 },
      });
      expect(opened.status).toBe(201);
      expect(opened.body.dispute.status).toBe("OPEN");
      const resolved = await call(
        "simulateDisputeResolution",
        "POST",
        `/api/v1/sandbox/disputes/${opened.body.dispute.id}/resolve`,
        { body: { outcome: "LOST" } },
      );
      expect(resolved.status).toBe(200);
    });
    test("simulateDisputeResolution with outcome DRAW → 400", async () => {
      const res = await call("simulateDisputeResolution", "POST", "/api/v1/sandbox/disputes/dsp_x/resolve", {
        body: { outcome: "DRAW" },
      });
      expect(res.status).toBe(400);
    });
    test("simulateBalanceRelease → 200 Balance", async () => {
      const res = await call("simulateBalanceRelease", "POST", "/api/v1/sandbox/balance/release");
      expect(res.status).toBe(200);
      expect(res.body.pendingCents).toBe(0);
    });
    realOnly("production key → 403 TEST_MODE_ONLY on every new sandbox route; expiring twice → 400", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      const live = { key: target.keys.live };
      const results = [
        await call("simulateExpiry", "POST", `/api/v1/sandbox/transactions/${created.body.id}/expire`, live),
        await call("simulateDispute", "POST", `/api/v1/sandbox/transactions/${created.body.id}/dispute`, {
          ...live,
          body: {},
        }),
        await call("simulateDisputeResolution", "POST", "/api/v1/sandbox/disputes/dsp_x/resolve", {
          ...live,
          body: { outcome: "WON" },
        }),
        await call("simulateBalanceRelease", "POST", "/api/v1/sandbox/balance/release", live),
      ];
      expect(results.map((r) => r.body.code)).toEqual(Array.from({ length: 4 }, () => "TEST_MODE_ONLY"));
      await call("simulateExpiry", "POST", `/api/v1/sandbox/transactions/${created.body.id}/expire`);
      const twice = await call("simulateExpiry", "POST", `/api/v1/sandbox/transactions/${created.body.id}/expire`);
      expect(twice.body.code).toBe("REQUEST_ERROR");
    });
    realOnly("magic Pix keys: falha@sandbox.pix → FAILED, parcial@sandbox.pix → PARTIALLY_PAID", async () => {
      const body = (pixKey: string) => ({ body: { amountCents: 1000, pixKey, pixKeyType: "EMAIL" } });
      const failed = await call("createWithdrawal", "POST", "/api/v1/withdrawals", body("falha@sandbox.pix"));
      const partial = await call("createWithdrawal", "POST", "/api/v1/withdrawals", body("parcial@sandbox.pix"));
      expect([failed.body.status, partial.body.status]).toEqual(["FAILED", "PARTIALLY_PAID"]);
    });
  });

  describe("events", () => {
    test("listEvents → 200 page; getEvent → 200", async () => {
      const created = await call("createPixCharge", "POST", "/api/v1/charges/pix", { body: chargeBody() });
      await call("simulatePayment", "POST", `/api/v1/sandbox/transactions/${created.body.id}/pay`);
      const list = await call("listEvents", "GET", "/api/v1/events?limit=5");
      expect(list.status).toBe(200);
      expect(list.body.data.length).toBeGreaterThan(0);
      const one = await call("getEvent", "GET", `/api/v1/events/${list.body.data[0].id}`);
      expect(one.status).toBe(200);
      if (target.real) expect(one.body).toEqual(list.body.data[0]);
    });
    test("listEvents with an unknown type → 400; without key → 401", async () => {
      expect((await call("listEvents", "GET", "/api/v1/events?type=transaction.refunded")).status).toBe(400);
      expect((await call("listEvents", "GET", "/api/v1/events", { key: null })).status).toBe(401);
    });
    realOnly("listEvents type=transaction.paid lists only that kind; unknown event → 404", async () => {
      const list = await call("listEvents", "GET", "/api/v1/events?type=transaction.paid&limit=20");
      expect(list.body.data.every((e: { type: string }) => e.type === "transaction.paid")).toBe(true);
      expect((await call("getEvent", "GET", "/api/v1/events/evt_nope")).status).toBe(404);
    });
  });

  afterAll(() => {
    // Every operation's success response was exercised against this target.
    const seen = covered.get(target.name) ?? new Set<string>();
    const missing = documentedOperations.filter((id) => ![...seen].some((s) => s.startsWith(`${id}:2`)));
    expect(missing, `operations with no success case against ${target.name}`).toEqual([]);
  });
});
