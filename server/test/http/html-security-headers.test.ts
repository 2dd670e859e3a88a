import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../harness.js";

// The HTML the server answers besides the checkout (whose headers payments/checkout-security.test.ts holds):
// the dashboard's app at /painel and the documentation at /docs, each with its own policy, set in
// one place (http/kit/html-security.ts).

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const headersOf = async (path: string) => {
  const res = await fetch(`${server.baseUrl}${path}`);
  await res.arrayBuffer();
  return res.headers;
};

describe("HTML security headers", () => {
  test("when /painel answers (built or not), then only its own files may run, nothing frames it, and it keeps its addresses to itself", async () => {
    const headers = await headersOf("/painel/");

    expect(headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("referrer-policy")).toBe("same-origin");
    expect(headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(headers.get("permissions-policy")).toBe(
      "camera=(), microphone=(), geolocation=(), payment=(), clipboard-write=(self)",
    );
  });

  test("when /docs/ answers, then its scripts are its own, its styles may be inline, nothing frames it and no form posts", async () => {
    const headers = await headersOf("/docs/");

    const csp = headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/^default-src 'none'; script-src 'self'( 'sha256-[^']+')*; style-src 'self' 'unsafe-inline';/);
    expect(csp).toContain("; form-action 'none'; frame-ancestors 'none'; base-uri 'none'");
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("referrer-policy")).toBe("same-origin");
    expect(headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(headers.get("cross-origin-resource-policy")).toBeNull();
    expect(headers.get("permissions-policy")).toBeNull();
  });
});
