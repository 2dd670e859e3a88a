import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { rawCall, startTestServer, type TestServer } from "../harness.js";

// The API is server to server (docs/quickstart.md, spec/main.tsp): a key never belongs in a
// browser, so the server answers a CORS preflight as any other unknown method, and sends no CORS
// header. Prism answers the preflight itself; this pins the server's side of that difference.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("a browser's CORS preflight", () => {
  test.each(["/api/v1/charges/pix", "/api/v1/balance", "/api/v1/transactions/txn_4Fq9ZtR2mXwP8LkA3cD7"])(
    "when OPTIONS %s comes with an Origin, then 405 with Allow and no Access-Control header",
    async (path) => {
      const res = await rawCall(server.baseUrl, "OPTIONS", path, {
        headers: {
          origin: "https://loja.example.com.br",
          "access-control-request-method": "POST",
          "access-control-request-headers": "x-api-key,content-type",
        },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBeTruthy();
      expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    },
  );
});
