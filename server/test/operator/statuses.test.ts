import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ErrorBody, rawCall, startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// Every status the operator API answers is declared on the operation that answers it: the
// operations are read from the published document, each is sent what makes the server answer
// 400, 404, 413 and 415, and the answer must be one the operation declares. Every request here is
// broken on purpose, and built from the document at run time: untyped, through rawCall.

type Operation = { operationId: string; requestBody?: unknown; responses: Record<string, unknown> };
const document = readOpenApiDocument("generated/admin-openapi.yaml") as {
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    method: method.toUpperCase(),
    // Ids nobody has: the answers under test come before, or instead of, any lookup.
    path: path.replaceAll(/\{[^}]+\}/g, "acc_0000000000000000000"),
    operation,
  })),
);
const withBody = operations.filter((o) => o.operation.requestBody);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("operator API: every answer is declared", () => {
  test("when the document is read, then it has operator operations, some with a body", () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(withBody.length).toBeGreaterThan(8);
  });

  test.each(operations)(
    "when $method $path gets a query parameter it does not take, then 400 is what it answers and declares",
    async ({ method, path, operation }) => {
      const res = await rawCall<ErrorBody>(server.baseUrl, method, `${path}?notAParameter=1`, {
        admin: testAdminToken,
        ...(operation.requestBody ? { body: {} } : {}),
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(operation.responses)).toContain("400");
    },
  );

  test.each(operations)(
    "when $method $path is spelled with a trailing slash, then 404 is what it answers and declares",
    async ({ method, path, operation }) => {
      const res = await rawCall<ErrorBody>(server.baseUrl, method, `${path}/`, { admin: testAdminToken });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
      expect(Object.keys(operation.responses)).toContain("404");
    },
  );

  test.each(withBody)(
    "when $method $path gets a body that is not JSON, then 415 is what it answers and declares",
    async ({ method, path, operation }) => {
      const res = await rawCall<ErrorBody>(server.baseUrl, method, path, {
        admin: testAdminToken,
        rawBody: "name=x",
        headers: { "content-type": "text/plain" },
      });
      expect(res.status).toBe(415);
      expect(Object.keys(operation.responses)).toContain("415");
    },
  );

  test.each(withBody)(
    "when $method $path gets a body over the limit, then 413 is what it answers and declares",
    async ({ method, path, operation }) => {
      const res = await rawCall<ErrorBody>(server.baseUrl, method, path, {
        admin: testAdminToken,
        rawBody: JSON.stringify({ name: "x".repeat(70 * 1024) }),
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(413);
      expect(Object.keys(operation.responses)).toContain("413");
    },
  );
});
