import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { rawCall, startTestServer, type TestServer } from "../harness.js";

// The home page a newcomer opens first (issue 33, "Found on the way"): it leads to the merchant
// dashboard and the documentation, which answers at `/docs` and `/docs/` alike.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("GET /", () => {
  test("when a browser opens it, then it links the dashboard (/painel) and the docs (/docs), and both answer", async () => {
    const res = await fetch(`${server.baseUrl}/`, { headers: { accept: "text/html" } });
    const html = await res.text();
    const links = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);

    expect(res.status).toBe(200);
    expect(links).toContain("/painel");
    expect(links).toContain("/docs");
    for (const link of ["/painel", "/docs"]) {
      const target = await fetch(`${server.baseUrl}${link}`);
      await target.arrayBuffer();
      // The dashboard answers 503 with how to build it when the test run has not built it.
      expect([200, 503], link).toContain(target.status);
    }
  });

  test("when a program asks for JSON, then it names the dashboard and the docs among its links", async () => {
    const res = await rawCall<Record<string, unknown>>(server.baseUrl, "GET", "/", {
      headers: { accept: "application/json" },
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ service: "Pix Charging Service", dashboard: "/painel", docs: "/docs" });
  });
});

describe("GET /docs", () => {
  test("when the docs are asked without the trailing slash, then they are sent to /docs/, which serves them", async () => {
    const res = await fetch(`${server.baseUrl}/docs`, { redirect: "manual" });
    await res.arrayBuffer();
    const followed = await fetch(`${server.baseUrl}/docs`);
    const html = await followed.text();

    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/docs/");
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${server.baseUrl}/docs/`);
    // The built site, or (not built in this run) the page saying how to build it; both name the API.
    expect(html).toContain("Pix Charging Service");
    expect(html).toContain("/docs/api/public/");
  });
});
