import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../harness.js";

// The request check's route lookup is ours (http/operations.ts: the generated operation table,
// matched once per request), one path in every mode. These are the answers express-openapi-validator's
// own lookup gives for paths that exercise it (the differential test holds the two equal on
// generated requests): first match in document order, method mismatch (405 with Allow), unknown,
// case and trailing-slash spellings, malformed percent-encodings, and a path parameter.

const unknownCharge = "txn_0VbodgcnAAAll5gWKq1r";

const cases = [
  { method: "GET", path: "/api/v1/transactions/%E0%A4%A", status: 400, code: "VALIDATION_ERROR" },
  { method: "GET", path: "/api/v1/transactions/%ZZ", status: 400, code: "VALIDATION_ERROR" },
  { method: "GET", path: `/api/v1/transactions/${unknownCharge}`, status: 404, code: "NOT_FOUND" },
  { method: "GET", path: `/api/v1/transactions/${unknownCharge}?x=1`, status: 400, code: "VALIDATION_ERROR" },
  {
    method: "GET",
    path: `/api/v1/transactions/${unknownCharge}/cancel`,
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    allow: "POST",
  },
  { method: "PATCH", path: "/api/v1/transactions/x", status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET" },
  { method: "DELETE", path: "/api/v1/balance", status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET" },
  { method: "PUT", path: "/api/v1/customers", status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET, POST" },
  { method: "GET", path: "/api/v1/nothing", status: 404, code: "NOT_FOUND" },
  { method: "GET", path: "/api/v1/transactions/", status: 404, code: "NOT_FOUND" },
  { method: "GET", path: "/api/v1/Transactions", status: 404, code: "NOT_FOUND" },
  { method: "GET", path: "/api/v1/transactions/a%2Fb", status: 404, code: "NOT_FOUND" },
  { method: "GET", path: "/api/v1/payment-links/pl_%C3%A9", status: 404, code: "NOT_FOUND" },
  { method: "GET", path: "/api/v1/transactions?limit=abc", status: 400, code: "VALIDATION_ERROR" },
  { method: "GET", path: "/api/v1/transactions?limit=2", status: 200 },
  { method: "GET", path: "/api/v1/balance", status: 200 },
] as { method: string; path: string; status: number; code?: string; allow?: string }[];

describe("the route lookup of the request check", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    key = (await server.newAccount()).testKey;
  });
  afterAll(() => server.close());

  test.each(cases)("when $method $path is asked, then $status", async ({ method, path, status, code, allow }) => {
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers: { "x-api-key": key } });
    const body = (await res.json()) as { code?: string };

    expect(res.status).toBe(status);
    if (code) expect(body.code).toBe(code);
    expect(res.headers.get("allow") ?? undefined).toBe(allow);
  });
});
