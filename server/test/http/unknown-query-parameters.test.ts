import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chargeBody, type ErrorBody, rawCall, testAdminToken } from "../harness.js";
import { signedUp } from "../support/dashboard.js";
import { eachStore, type StartedServer } from "../support/stores.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// A query parameter an operation does not declare is refused with `400 VALIDATION_ERROR` and one
// item naming it as it was sent, whatever the name (brackets, prototype names, empty, repeated),
// on an operation of each API (public, dashboard, operator, the probes), and nothing reaches
// Object.prototype. The server has one request check in every mode (NODE_ENV no longer adds a second).
// docs/decisions/0042-unknown-query-parameters-and-a-newcomers-first-hour.md.

const unknownMessage = "parâmetro de consulta desconhecido nesta operação";

/** The query string sent and the name the answer must give (node's querystring decodes it). */
const oddNames = [
  { query: "__proto__%5Bpolluted%5D=1", name: "__proto__[polluted]" },
  { query: "__proto__[polluted]=1", name: "__proto__[polluted]" },
  { query: "__proto__=1", name: "__proto__" },
  { query: "__proto__%5B__proto__%5D%5Bpolluted%5D=1", name: "__proto__[__proto__][polluted]" },
  { query: "constructor=1", name: "constructor" },
  { query: "constructor%5Bprototype%5D%5Bpolluted%5D=1", name: "constructor[prototype][polluted]" },
  { query: "prototype=1", name: "prototype" },
  { query: "toString=1", name: "toString" },
  { query: "hasOwnProperty%5Bx%5D=1", name: "hasOwnProperty[x]" },
  { query: "a%5Bb%5D=1", name: "a[b]" },
  { query: "a%5B%5D=1&a%5B%5D=2", name: "a[]" },
  { query: "%5B%5D=1", name: "[]" },
  { query: "%5Bpolluted%5D=1", name: "[polluted]" },
  { query: "=1", name: "" },
  { query: "=", name: "" },
  { query: "x=1&x=2", name: "x" },
  { query: "x", name: "x" },
  { query: "limit%5Bx%5D=1", name: "limit[x]" },
  { query: "limit%5B%5D=1", name: "limit[]" },
  { query: "LIMIT=1", name: "LIMIT" },
  { query: "a.b=1", name: "a.b" },
  { query: "a%2Fb=1", name: "a/b" },
  { query: "a%20b=1", name: "a b" },
  { query: "a%3Db=1", name: "a=b" },
  { query: "cobran%C3%A7a=1", name: "cobrança" },
  { query: "expand=true&limit=1", name: "expand" },
];

/** The polluted names the table sends, none of which may ever appear on a plain object. */
const pollutionProbes = ["polluted", "x", "b", "a", "__proto__"];

/** Sends the operation's request with `query` as its query string. */
type Send = (query: string) => Promise<{ status: number; body: unknown }>;

interface Operation {
  name: string;
  /** Set up once per server (an account, a session); returns how to call the operation. */
  prepare(started: StartedServer): Promise<Send>;
}

const operations: Operation[] = [
  {
    name: "GET /api/v1/transactions",
    async prepare({ server }) {
      const { testKey } = await server.newAccount();
      return (query) => rawCall(server.baseUrl, "GET", `/api/v1/transactions?${query}`, { key: testKey });
    },
  },
  {
    name: "POST /api/v1/charges/pix",
    async prepare({ server }) {
      const { testKey } = await server.newAccount();
      return (query) =>
        rawCall(server.baseUrl, "POST", `/api/v1/charges/pix?${query}`, { key: testKey, body: chargeBody() });
    },
  },
  {
    name: "GET /dashboard/v1/modes/test/transactions",
    async prepare({ server }) {
      const { browser } = await signedUp(server);
      return (query) =>
        rawCall(server.baseUrl, "GET", `/dashboard/v1/modes/test/transactions?${query}`, {
          headers: { cookie: `__Host-pix_session=${browser.cookie ?? ""}` },
        });
    },
  },
  {
    name: "GET /admin/v1/accounts",
    async prepare({ server }) {
      return (query) => rawCall(server.baseUrl, "GET", `/admin/v1/accounts?${query}`, { admin: testAdminToken });
    },
  },
  {
    name: "GET /health",
    async prepare({ server }) {
      return (query) => rawCall(server.baseUrl, "GET", `/health?${query}`);
    },
  },
  {
    name: "GET /ready",
    async prepare({ server }) {
      return (query) => rawCall(server.baseUrl, "GET", `/ready?${query}`);
    },
  },
];

/** The query each operation takes, to show the table's refusals are not every request refused. */
const accepted: Record<string, string> = {
  "GET /api/v1/transactions": "limit=1",
  "POST /api/v1/charges/pix": "",
  "GET /dashboard/v1/modes/test/transactions": "limit=1",
  "GET /admin/v1/accounts": "limit=1",
  "GET /health": "",
  "GET /ready": "",
};

for (const store of eachStore("unknown_query")) {
  store.describe(`unknown query parameters on the ${store.name} store`, () => {
    let started: StartedServer;
    const calls = new Map<string, Send>();
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    beforeAll(async () => {
      started = await store.start();
      for (const operation of operations) calls.set(operation.name, await operation.prepare(started));
    }, 60_000);
    afterAll(async () => {
      await started?.stop();
    });
    const call = (operation: string, query: string) => {
      const send = calls.get(operation);
      if (!send) throw new Error(`no call for ${operation}`);
      return send(query);
    };

    test.each(operations.map((o) => ({ operation: o.name, query: accepted[o.name] ?? "" })))(
      "when $operation gets only the query it declares ('$query'), then it is admitted",
      async ({ operation, query }) => {
        const res = await call(operation, query);
        expect(res.status).toBeLessThan(300);
      },
    );

    test.each(operations.flatMap((o) => oddNames.map((n) => ({ operation: o.name, ...n }))))(
      "when $operation gets the undeclared query '$query', then 400 VALIDATION_ERROR names '$name' and Object.prototype is untouched",
      async ({ operation, query, name }) => {
        const res = await call(operation, query);
        expect(res.status).toBe(400);
        const body = res.body as ErrorBody;
        expect(body.code).toBe("VALIDATION_ERROR");
        expect(body.errors).toEqual([{ path: name, message: unknownMessage }]);
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
        const plain: Record<string, unknown> = {};
        for (const probe of pollutionProbes.filter((p) => p !== "__proto__")) expect(plain[probe]).toBeUndefined();
        expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
      },
    );
  });
}

describe("unknown query parameters: the documents", () => {
  test("when the probes are read in the public document, then each declares the 400 it answers", async () => {
    const document = readOpenApiDocument(
      fileURLToPath(new URL("../../../generated/openapi.yaml", import.meta.url)),
    ) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const path of ["/health", "/ready"])
      expect(Object.keys(document.paths[path]?.get?.responses ?? {})).toContain("400");
  });
});
