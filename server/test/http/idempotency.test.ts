import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { createPixClient } from "../../../client/src/index.js";
import pg from "pg";
import { createPool, migrateDatabase, PostgresStore } from "../../src/store/postgres/index.js";
import { bodyOf, chargeBody, publicApi, type TestServer } from "../harness.js";
import { createTestDatabase, describePg, migrateUpToBefore } from "../support/pg.js";
import { eachStore, serverOn } from "../support/stores.js";
import { brasiliaDate } from "../../src/domain/payments/index.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// docs/decisions/0005-idempotency.md, "Idempotency everywhere": every POST of the public API that creates or changes
// something (and the one PATCH) takes an `idempotency-key`. The same key and request replay the first answer byte for
// byte with `Idempotent-Replayed: true` and do nothing more; another request under the key is a 409;
// another key runs again. The operations come from the contract, so a new POST or PATCH without a
// case here (or without the header in the spec) fails.

const document = readOpenApiDocument(fileURLToPath(new URL("../../../generated/openapi.yaml", import.meta.url))) as {
  paths: Record<string, Record<string, { operationId: string; parameters?: { $ref?: string }[]; responses: object }>>;
};
const changingOperations = Object.values(document.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => method === "post" || method === "patch")
    .map(([, operation]) => operation),
);

interface Call {
  method?: "POST" | "PATCH";
  path: string;
  body?: unknown;
}

/** One operation's test material, on a fresh account whose test key is `key`. */
interface Case {
  /** What the operation acts on, made first; answers a request and another one (other body or path). */
  prepare(api: Api): Promise<{ request: Call; other: Call }>;
  /** The status of the first answer. */
  status: number;
  /** What the operation creates or changes, read through the API. */
  observe(api: Api): Promise<unknown>;
  /** The same request again under another key: its status, and what the API shows then. */
  again: { status: number; check(before: unknown, after: unknown): void };
  /**
   * Why no other request exists for this operation (no body, no path id: every call is the same
   * request), so the 409 of a reused key cannot happen.
   */
  onlyOneRequest?: string;
}

interface Api {
  key: string;
  send(request: Call, idempotencyKey?: string): Promise<RawAnswer>;
  /** The public API with this key, to read back what the operations made. */
  client: ReturnType<typeof publicApi>;
  server: TestServer;
}

/** The first hundred of each list, and the balance, read back through the typed client (200 or the test fails). */
const first100 = { params: { query: { limit: 100 } } };
const listed = {
  transactions: async (api: Api) => (await bodyOf(api.client.GET("/api/v1/transactions", first100), 200)).data,
  recurrences: async (api: Api) => (await bodyOf(api.client.GET("/api/v1/recurrences", first100), 200)).data,
  withdrawals: async (api: Api) => (await bodyOf(api.client.GET("/api/v1/withdrawals", first100), 200)).data,
  paymentLinks: async (api: Api) => (await bodyOf(api.client.GET("/api/v1/payment-links", first100), 200)).data,
  customers: async (api: Api) => (await bodyOf(api.client.GET("/api/v1/customers", first100), 200)).data,
};
const balanceOf = async (api: Api) => bodyOf(api.client.GET("/api/v1/balance"), 200);

interface RawAnswer {
  status: number;
  text: string;
  replayed: string | null;
}

const linkBody = (overrides: Record<string, unknown> = {}) => ({
  amountCents: 15000,
  description: "Curso online de fotografia",
  metadata: { productId: "curso-foto-01", z: "1", a: "2" },
  ...overrides,
});

async function createCharge(api: Api, amountCents = 8990): Promise<string> {
  const res = await api.send({ path: "/api/v1/charges/pix", body: chargeBody({ amountCents }) });
  expect(res.status).toBe(201);
  return (JSON.parse(res.text) as { id: string }).id;
}

async function createLink(api: Api): Promise<string> {
  const res = await api.send({ path: "/api/v1/payment-links", body: linkBody() });
  expect(res.status).toBe(201);
  return (JSON.parse(res.text) as { id: string }).id;
}

/** A paid test charge whose money is available (the release day has passed). */
async function availableCharge(api: Api, amountCents = 8990): Promise<string> {
  const id = await createCharge(api, amountCents);
  expect((await api.send({ path: `/api/v1/sandbox/transactions/${id}/pay` })).status).toBe(200);
  api.server.clock.advance(86_400);
  return id;
}

async function openDispute(api: Api, chargeId: string): Promise<string> {
  // Part of the charge, so two charges' disputes fit in what is available.
  const res = await api.send({ path: `/api/v1/sandbox/transactions/${chargeId}/dispute`, body: { amountCents: 3000 } });
  expect(res.status).toBe(201);
  return (JSON.parse(res.text) as { dispute: { id: string } }).dispute.id;
}

/** A test recurrence whose first cycle falls `firstIn` days from the server's today; approved when asked. */
async function newRecurrence(
  api: Api,
  options: { firstIn?: number; approve?: boolean; body?: Record<string, unknown> } = {},
): Promise<string> {
  const firstDate = dateAfter(brasiliaDate(api.server.clock.now()), options.firstIn ?? 31);
  const res = await api.send({ path: "/api/v1/recurrences", body: recurrenceBody({ firstDate, ...options.body }) });
  expect(res.status).toBe(201);
  const id = (JSON.parse(res.text) as { id: string }).id;
  if (options.approve)
    expect((await api.send({ path: `/api/v1/sandbox/recurrences/${id}/approve`, body: {} })).status).toBe(200);
  return id;
}

/** A cycle charge with its attempt scheduled, of a new approved recurrence. */
async function cycleCharge(api: Api): Promise<string> {
  const id = await newRecurrence(api, { firstIn: 5, approve: true });
  const dueDate = dateAfter(brasiliaDate(api.server.clock.now()), 5);
  const res = await api.send({ path: `/api/v1/recurrences/${id}/charges`, body: { dueDate } });
  expect(res.status).toBe(201);
  return (JSON.parse(res.text) as { id: string }).id;
}

const recurrencesView = async (api: Api) => await listed.recurrences(api);

/** A change of state of a recurrence, made on one of two recurrences prepared by `make`. */
const recurrenceChange = (action: string, make: (api: Api) => Promise<string>, body: unknown, again: number): Case => ({
  async prepare(api) {
    const [one, two] = [await make(api), await make(api)];
    return {
      request: { path: `/api/v1/sandbox/recurrences/${one}/${action}`, body },
      other: { path: `/api/v1/sandbox/recurrences/${two}/${action}`, body },
    };
  },
  status: 200,
  observe: async (api) => ({
    recurrences: await recurrencesView(api),
    transactions: await listed.transactions(api),
  }),
  // Another key is another change: the recurrence is in its new state already.
  again: { status: again, check: (before, after) => expect(after).toEqual(before) },
});

const ids = (items: { id: string }[]) => items.map((item) => item.id);
const moneyView = async (api: Api) => ({
  transactions: await listed.transactions(api),
  balance: await balanceOf(api),
});
const unchanged = (before: unknown, after: unknown) => expect(after).toEqual(before);
const twoCreated = (before: unknown, after: unknown) => {
  expect((before as unknown[]).length).toBe(1);
  expect((after as unknown[]).length).toBe(2);
};

const cases: Record<string, Case> = {
  createPixCharge: {
    prepare: async () => ({
      request: { path: "/api/v1/charges/pix", body: chargeBody() },
      other: { path: "/api/v1/charges/pix", body: chargeBody({ amountCents: 9990 }) },
    }),
    status: 201,
    observe: async (api) => ids(await listed.transactions(api)),
    again: { status: 201, check: twoCreated },
  },
  createDueDateCharge: {
    prepare: async () => {
      const body = { ...chargeBody(), dueDate: "2030-12-13", fine: { mode: "FIXED", amountCents: 500 } };
      return {
        request: { path: "/api/v1/charges/due-date", body },
        other: { path: "/api/v1/charges/due-date", body: { ...body, dueDate: "2030-12-20" } },
      };
    },
    status: 201,
    observe: async (api) => ids(await listed.transactions(api)),
    again: { status: 201, check: twoCreated },
  },
  createWithdrawal: {
    async prepare(api) {
      const id = await createCharge(api, 100_080);
      expect((await api.send({ path: `/api/v1/sandbox/transactions/${id}/pay` })).status).toBe(200);
      api.server.clock.advance(86_400);
      const body = { amountCents: 2500, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" };
      return {
        request: { path: "/api/v1/withdrawals", body },
        other: { path: "/api/v1/withdrawals", body: { ...body, amountCents: 3000 } },
      };
    },
    status: 201,
    observe: async (api) => ({
      withdrawals: ids(await listed.withdrawals(api)),
      balance: await balanceOf(api),
    }),
    again: {
      status: 201,
      check: (before, after) =>
        twoCreated(
          (before as { withdrawals: unknown[] }).withdrawals,
          (after as { withdrawals: unknown[] }).withdrawals,
        ),
    },
  },
  createPaymentLink: {
    prepare: async () => ({
      request: { path: "/api/v1/payment-links", body: linkBody() },
      other: { path: "/api/v1/payment-links", body: linkBody({ amountCents: 16000 }) },
    }),
    status: 201,
    observe: async (api) => ids(await listed.paymentLinks(api)),
    again: { status: 201, check: twoCreated },
  },
  deactivatePaymentLink: {
    async prepare(api) {
      const [one, two] = [await createLink(api), await createLink(api)];
      return {
        request: { path: `/api/v1/payment-links/${one}/deactivate` },
        other: { path: `/api/v1/payment-links/${two}/deactivate` },
      };
    },
    status: 200,
    observe: async (api) => await listed.paymentLinks(api),
    // Deactivating an inactive link changes nothing and answers it as it is.
    again: { status: 200, check: (before, after) => expect(after).toEqual(before) },
  },
  upsertCustomer: {
    prepare: async () => {
      const body = {
        name: "Maria da Silva Santos",
        document: "529.982.247-25",
        address: { zipCode: "01310-100", state: "SP" },
      };
      return {
        request: { path: "/api/v1/customers", body },
        other: { path: "/api/v1/customers", body: { ...body, name: "Maria S. Santos" } },
      };
    },
    status: 201,
    observe: async (api) => await listed.customers(api),
    // The same document under another key updates the customer (200), so it stays one.
    again: {
      status: 200,
      check: (before, after) => {
        expect(ids(after as { id: string }[])).toEqual(ids(before as { id: string }[]));
      },
    },
  },
  updateCustomer: {
    async prepare(api) {
      const res = await api.send({
        path: "/api/v1/customers",
        body: { name: "Maria da Silva Santos", document: "52998224725" },
      });
      expect(res.status).toBe(201);
      const path = `/api/v1/customers/${(JSON.parse(res.text) as { id: string }).id}`;
      return {
        request: { method: "PATCH", path, body: { phone: "11912345678", address: { city: "São Paulo", state: "SP" } } },
        other: { method: "PATCH", path, body: { phone: "11987654321" } },
      };
    },
    status: 200,
    observe: async (api) => await listed.customers(api),
    // Another key is another update: the same fields again, a later updatedAt.
    again: {
      status: 200,
      check: (before, after) => {
        const [was] = before as { updatedAt: string }[];
        const [now] = after as { updatedAt: string }[];
        expect(now!.updatedAt > was!.updatedAt).toBe(true);
        expect({ ...now, updatedAt: "" }).toEqual({ ...was, updatedAt: "" });
      },
    },
  },
  cancelTransaction: {
    async prepare(api) {
      const [one, two] = [await createCharge(api), await createCharge(api)];
      return {
        request: { path: `/api/v1/transactions/${one}/cancel` },
        other: { path: `/api/v1/transactions/${two}/cancel` },
      };
    },
    status: 200,
    observe: async (api) => await listed.transactions(api),
    // Another key is another cancel: the charge is cancelled already.
    again: { status: 400, check: (before, after) => expect(after).toEqual(before) },
  },
  simulatePayment: {
    async prepare(api) {
      const [one, two] = [await createCharge(api), await createCharge(api)];
      return {
        request: { path: `/api/v1/sandbox/transactions/${one}/pay` },
        other: { path: `/api/v1/sandbox/transactions/${two}/pay` },
      };
    },
    status: 200,
    observe: async (api) => ({
      transactions: await listed.transactions(api),
      balance: await balanceOf(api),
    }),
    // Another key is another pay: the charge is paid already.
    again: { status: 400, check: (before, after) => expect(after).toEqual(before) },
  },

  createRefund: {
    async prepare(api) {
      const id = await availableCharge(api, 20_000);
      const path = `/api/v1/transactions/${id}/refunds`;
      return { request: { path, body: { amountCents: 1000 } }, other: { path, body: { amountCents: 2000 } } };
    },
    status: 201,
    observe: moneyView,
    // Another key is another refund: the charge has refunded twice as much.
    again: {
      status: 201,
      check: (before, after) => {
        const refunded = (view: unknown) =>
          (view as { transactions: { refundedAmountCents: number }[] }).transactions[0]!.refundedAmountCents;
        expect(refunded(after)).toBe(refunded(before) + 1000);
      },
    },
  },
  simulateExpiry: {
    async prepare(api) {
      const [one, two] = [await createCharge(api), await createCharge(api)];
      return {
        request: { path: `/api/v1/sandbox/transactions/${one}/expire` },
        other: { path: `/api/v1/sandbox/transactions/${two}/expire` },
      };
    },
    status: 200,
    observe: async (api) => await listed.transactions(api),
    // Another key is another expiry: the charge has expired already.
    again: { status: 400, check: unchanged },
  },
  simulateDispute: {
    async prepare(api) {
      const [one, two] = [await availableCharge(api), await availableCharge(api)];
      return {
        request: { path: `/api/v1/sandbox/transactions/${one}/dispute`, body: {} },
        other: { path: `/api/v1/sandbox/transactions/${two}/dispute`, body: {} },
      };
    },
    status: 201,
    observe: moneyView,
    // Another key is another dispute: the charge has an open one already.
    again: { status: 400, check: unchanged },
  },
  simulateDisputeResolution: {
    async prepare(api) {
      const [one, two] = [await availableCharge(api), await availableCharge(api)];
      const [first, second] = [await openDispute(api, one), await openDispute(api, two)];
      return {
        request: { path: `/api/v1/sandbox/disputes/${first}/resolve`, body: { outcome: "WON" } },
        other: { path: `/api/v1/sandbox/disputes/${second}/resolve`, body: { outcome: "WON" } },
      };
    },
    status: 200,
    observe: moneyView,
    // Another key is another resolution: the dispute is closed already.
    again: { status: 400, check: unchanged },
  },
  simulateBalanceRelease: {
    async prepare(api) {
      const id = await createCharge(api);
      expect((await api.send({ path: `/api/v1/sandbox/transactions/${id}/pay` })).status).toBe(200);
      const request = { path: "/api/v1/sandbox/balance/release" };
      return { request, other: request };
    },
    status: 200,
    observe: balanceOf,
    // Another key is another release: nothing is pending any more.
    again: { status: 200, check: unchanged },
    onlyOneRequest: "it has no body and no path id",
  },
};

Object.assign(cases, {
  createRecurrence: {
    prepare: async (api: Api) => {
      const firstDate = dateAfter(brasiliaDate(api.server.clock.now()), 31);
      return {
        request: { path: "/api/v1/recurrences", body: recurrenceBody({ firstDate }) },
        other: { path: "/api/v1/recurrences", body: recurrenceBody({ firstDate, contractReference: "OUTRO-0001" }) },
      };
    },
    status: 201,
    observe: recurrencesView,
    again: { status: 201, check: twoCreated },
  },
  cancelRecurrence: {
    async prepare(api: Api) {
      const [one, two] = [await newRecurrence(api), await newRecurrence(api)];
      return {
        request: { path: `/api/v1/recurrences/${one}/cancel` },
        other: { path: `/api/v1/recurrences/${two}/cancel` },
      };
    },
    status: 200,
    observe: recurrencesView,
    // Another key is another cancel: the recurrence is cancelled already.
    again: { status: 400, check: unchanged },
  },
  createRecurringCharge: {
    async prepare(api: Api) {
      const id = await newRecurrence(api, { firstIn: 3, approve: true, body: { periodicity: "WEEKLY" } });
      const today = brasiliaDate(api.server.clock.now());
      const path = `/api/v1/recurrences/${id}/charges`;
      return {
        request: { path, body: { dueDate: dateAfter(today, 3) } },
        other: { path, body: { dueDate: dateAfter(today, 10) } },
      };
    },
    status: 201,
    observe: async (api: Api) => await listed.transactions(api),
    // Another key is another charge of the same cycle: one live charge per cycle.
    again: { status: 400, check: unchanged },
  },
  simulateRecurrenceApproval: recurrenceChange("approve", (api) => newRecurrence(api), {}, 400),
  simulateRecurrenceRejection: recurrenceChange("reject", (api) => newRecurrence(api), {}, 400),
  simulateRecurrenceCancellationByPayer: recurrenceChange("cancel-by-payer", (api) => newRecurrence(api), {}, 400),
  simulateRecurrenceExpiry: recurrenceChange("expire", (api) => newRecurrence(api), undefined, 400),
  simulateRecurrenceAdvance: recurrenceChange(
    "advance",
    (api) => newRecurrence(api, { firstIn: 40, approve: true, body: { automaticCharges: true } }),
    undefined,
    400,
  ),
  simulateRecurringAttempt: {
    async prepare(api: Api) {
      const [one, two] = [await cycleCharge(api), await cycleCharge(api)];
      return {
        request: { path: `/api/v1/sandbox/transactions/${one}/settle-attempt`, body: { outcome: "PAID" } },
        other: { path: `/api/v1/sandbox/transactions/${two}/settle-attempt`, body: { outcome: "PAID" } },
      };
    },
    status: 200,
    observe: moneyView,
    // Another key is another attempt: the charge is paid already.
    again: { status: 400, check: unchanged },
  },
} satisfies Record<string, Case>);

describe("the operations covered", () => {
  test("when the contract is read, then every POST and PATCH of the public API has a case here", () => {
    expect(changingOperations.map((op) => op.operationId).sort()).toEqual(Object.keys(cases).sort());
  });

  test.each(changingOperations.map((op) => [op.operationId, op] as const))(
    "when %s is read in the contract, then it declares idempotency-key and the 409",
    (_id, operation) => {
      expect(operation.parameters ?? []).toContainEqual({ $ref: "#/components/parameters/IdempotencyHeader" });
      expect(Object.keys(operation.responses)).toContain("409");
    },
  );
});

for (const store of eachStore("idempotency_everywhere", { poolMax: 10 })) {
  store.describe(`idempotency on every POST and PATCH, ${store.name} store`, () => {
    const server = serverOn(store);

    async function newApi(): Promise<Api> {
      const { testKey } = await server.newAccount();
      return {
        key: testKey,
        server,
        async send(request, idempotencyKey) {
          const headers: Record<string, string> = { "x-api-key": testKey };
          if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
          if (request.body !== undefined) headers["content-type"] = "application/json";
          const res = await fetch(`${server.baseUrl}${request.path}`, {
            method: request.method ?? "POST",
            headers,
            body: request.body === undefined ? undefined : JSON.stringify(request.body),
          });
          return { status: res.status, text: await res.text(), replayed: res.headers.get("idempotent-replayed") };
        },
        client: publicApi(server.baseUrl, { key: testKey }),
      };
    }

    describe.each(Object.entries(cases))("%s", (_operationId, c) => {
      test("when the same key and request come twice, then the second replays the first's bytes and nothing more happens", async () => {
        const api = await newApi();
        const { request } = await c.prepare(api);

        const first = await api.send(request, "chave-1");
        const afterFirst = await c.observe(api);
        server.clock.advance(60);
        const second = await api.send(request, "chave-1");

        expect(first.status).toBe(c.status);
        expect(first.replayed).toBeNull();
        expect(second.status).toBe(first.status);
        expect(second.replayed).toBe("true");
        expect(second.text).toBe(first.text);
        expect(await c.observe(api)).toEqual(afterFirst);
      });

      test.skipIf(c.onlyOneRequest !== undefined)(
        "when the same key comes with another request, then 409 IDEMPOTENCY_KEY_REUSED and nothing changes",
        async () => {
          const api = await newApi();
          const { request, other } = await c.prepare(api);
          await api.send(request, "chave-2");
          const before = await c.observe(api);

          const res = await api.send(other, "chave-2");

          expect(res.status).toBe(409);
          expect(res.replayed).toBeNull();
          expect(JSON.parse(res.text)).toMatchObject({ ok: false, code: "IDEMPOTENCY_KEY_REUSED" });
          expect(await c.observe(api)).toEqual(before);
        },
      );

      test("when the same request comes under two keys, then each runs", async () => {
        const api = await newApi();
        const { request } = await c.prepare(api);
        await api.send(request, "chave-3");
        const before = await c.observe(api);
        server.clock.advance(60);

        const res = await api.send(request, "chave-4");

        expect(res.status).toBe(c.again.status);
        expect(res.replayed).toBeNull();
        c.again.check(before, await c.observe(api));
      });

      test("when 20 identical requests with one key arrive at once, then it happens once and all answer the same bytes", async () => {
        const api = await newApi();
        const { request } = await c.prepare(api);
        const before = await c.observe(api);

        const answers = await Promise.all(Array.from({ length: 20 }, () => api.send(request, "chave-corrida")));

        expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size).toBe(1);
        expect(answers[0]!.status).toBe(c.status);
        expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
        const after = await c.observe(api);
        expect(after).not.toEqual(before);
        const replay = await api.send(request, "chave-corrida");
        expect(replay.text).toBe(answers[0]!.text);
        expect(await c.observe(api)).toEqual(after);
      });
    });

    test("when the partner client's POSTs lose their first answers, then its retries with its own keys act once", async () => {
      const { testKey } = await server.newAccount();
      const sent: { method: string; key: string | null }[] = [];
      // The server acts on every request; the first answer of each POST is lost on its way back.
      const lossy = async (request: Request) => {
        const response = await fetch(request.clone());
        sent.push({ method: request.method, key: request.headers.get("idempotency-key") });
        if (
          request.method !== "GET" &&
          sent.filter((s) => s.key === request.headers.get("idempotency-key")).length === 1
        ) {
          throw new TypeError("fetch failed: connection reset");
        }
        return response;
      };
      const pix = createPixClient({
        apiKey: testKey,
        baseUrl: server.baseUrl,
        fetch: lossy,
        retryBackoff: { initialDelayMs: 1, maxDelayMs: 2 },
      });

      const link = await pix.POST("/api/v1/payment-links", { body: linkBody() });
      const charge = await pix.POST("/api/v1/charges/pix", { body: chargeBody() as never });
      const paid = await pix.POST("/api/v1/sandbox/transactions/{id}/pay", {
        params: { path: { id: charge.data!.id } },
      });

      expect([link.response.status, charge.response.status, paid.response.status]).toEqual([201, 201, 200]);
      expect([link, charge, paid].map((r) => r.response.headers.get("idempotent-replayed"))).toEqual([
        "true",
        "true",
        "true",
      ]);
      expect(paid.data!.status).toBe("PAID");
      const typed = publicApi(server.baseUrl, { key: testKey });
      const links = await bodyOf(typed.GET("/api/v1/payment-links"), 200);
      const charges = await bodyOf(typed.GET("/api/v1/transactions"), 200);
      expect([links.data.length, charges.data.length]).toEqual([1, 1]);
      expect(sent.filter((s) => s.method === "POST")).toHaveLength(6);
    });

    test("when a sandbox pay whose answer was lost is retried with its key, then the 200 is replayed, not 400", async () => {
      const api = await newApi();
      const id = await createCharge(api);
      const path = `/api/v1/sandbox/transactions/${id}/pay`;

      const first = await api.send({ path }, "pagar-1");
      const retry = await api.send({ path }, "pagar-1");
      const withoutKey = await api.send({ path });

      expect(first.status).toBe(200);
      expect(retry).toEqual({ status: 200, text: first.text, replayed: "true" });
      expect(withoutKey.status).toBe(400);
    });

    test("when a customer upsert that updated is replayed, then it answers the first 200, not a 201", async () => {
      const api = await newApi();
      const body = { name: "Maria da Silva Santos", document: "52998224725" };
      expect((await api.send({ path: "/api/v1/customers", body })).status).toBe(201);

      const first = await api.send(
        { path: "/api/v1/customers", body: { ...body, email: "maria@example.com.br" } },
        "cli-1",
      );
      const replay = await api.send(
        { path: "/api/v1/customers", body: { ...body, email: "maria@example.com.br" } },
        "cli-1",
      );

      expect(first.status).toBe(200);
      expect(replay).toEqual({ status: 200, text: first.text, replayed: "true" });
    });

    test("when a payment link's metadata keys are not in order, then the replay keeps the first answer's key order", async () => {
      const api = await newApi();
      const body = linkBody({ metadata: { zeta: "1", alfa: "2", meio: "3" } });

      const first = await api.send({ path: "/api/v1/payment-links", body }, "ordem-1");
      const replay = await api.send({ path: "/api/v1/payment-links", body }, "ordem-1");

      expect(first.text).toContain('"metadata":{"zeta":"1","alfa":"2","meio":"3"}');
      expect(replay.text).toBe(first.text);
    });
  });
}

describePg("the migration to response text", () => {
  test("when records were stored as jsonb before it, then they keep replaying their body after it", async () => {
    const database = await createTestDatabase("idempotency_text", { migrate: false });
    const store = new PostgresStore(createPool(database.url, { max: 2 }));
    const sql = new pg.Client({ connectionString: database.url });
    try {
      // Every migration before the one that moved the body to text.
      await migrateUpToBefore(database.url, "1764000000003");
      const at = "2026-10-04T15:30:00.000Z";
      // The account as that schema held it: today's code writes columns that came later.
      const account = { id: "acc_0000000000000000001" };
      await sql.connect();
      await sql.query(
        `INSERT INTO accounts (id, name, owner_email, verified, charge_fee_cents, charge_fee_bps, withdraw_fee_cents,
           release_period_days, merchant_city, pix_key, created_at, updated_at)
         VALUES ($1, 'Loja Exemplo Ltda', 'dono@loja.example', true, 80, 0, 200, 2, 'SAO PAULO', $2, $3, $3)`,
        [account.id, "7d9f0335-8dcc-4054-9bf9-0dbd61d36906", at],
      );
      await sql.query(
        `INSERT INTO idempotency_keys (account_id, livemode, operation, key, request_hash, response_status, response_body, created_at)
         VALUES ($1, false, 'createPixCharge', 'pedido-1', $2, 201, $3, $4)`,
        [account.id, "a".repeat(64), '{"id":"txn_1","amountCents":8990}', at],
      );

      await migrateDatabase(database.url);

      const record = await store.read.idempotency.get(
        { accountId: account.id, livemode: false },
        "createPixCharge",
        "pedido-1",
      );
      expect(record?.responseStatus).toBe(201);
      expect(JSON.parse(record!.responseText)).toEqual({ id: "txn_1", amountCents: 8990 });
    } finally {
      await sql.end();
      await store.close();
      await database.drop();
    }
  }, 60_000);
});
