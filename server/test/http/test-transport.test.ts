import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TestRequest, testFetch, testTransport } from "../support/transport.js";

// The typed test clients send through `testFetch` (support/transport.ts) instead of Node's `fetch`:
// the server must see what `fetch` would have sent, and the test what `fetch` would have given it,
// but for the differences the transport names (a redirect is not followed).

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let seen: Seen[] = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    if (req.url === "/empty") return void res.writeHead(204).end();
    if (req.url === "/moved") return void res.writeHead(302, { location: "/elsewhere" }).end();
    res.setHeader("set-cookie", ["a=1; Path=/", "b=2; Path=/"]);
    res.setHeader("content-type", "application/json; charset=utf-8");
    res.end(JSON.stringify({ ok: true, echoed: body }));
  });
});
let baseUrl: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const through = (transport: "fetch" | "testFetch") =>
  createClient<any>(transport === "fetch" ? { baseUrl } : { baseUrl, ...testTransport });

/** What the server saw of one call through each transport, and what each gave back. */
async function both(call: (client: ReturnType<typeof through>) => Promise<{ response: Response }>) {
  const results = [];
  for (const transport of ["fetch", "testFetch"] as const) {
    seen = [];
    const { response } = await call(through(transport));
    results.push({
      sent: seen.map(({ headers, ...rest }) => ({
        ...rest,
        // Node's fetch asks for compressed answers; testFetch reads them as sent.
        headers: Object.fromEntries(
          Object.entries(headers).filter(([name]) => !["accept-encoding", "connection", "host"].includes(name)),
        ),
      })),
      status: response.status,
      headers: [...response.headers].filter(([name]) => !["date", "keep-alive", "connection"].includes(name)),
      cookies: response.headers.getSetCookie(),
      text: await response.text(),
    });
  }
  return results;
}

describe("the typed test clients' transport", () => {
  test("when a JSON body is posted with headers, then the server sees what fetch sends and the answer reads as fetch's (each Set-Cookie apart)", async () => {
    const [viaFetch, viaTest] = await both((client) =>
      client.POST(
        "/things" as never,
        {
          params: { query: { limit: 2 } },
          body: { amountCents: 1500 },
          headers: { "x-api-key": "svc_test_x" },
          parseAs: "stream",
        } as never,
      ),
    );

    expect(viaTest).toEqual(viaFetch);
    expect(viaTest?.cookies).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(viaTest?.sent[0]).toMatchObject({
      method: "POST",
      url: "/things?limit=2",
      body: '{"amountCents":1500}',
      headers: { "x-api-key": "svc_test_x", "content-type": "application/json", "user-agent": "node" },
    });
  });

  test("when the answer is 204, then it has no body, as fetch's", async () => {
    const [viaFetch, viaTest] = await both((client) =>
      client.DELETE("/empty" as never, { parseAs: "stream" } as never),
    );

    expect(viaTest).toEqual(viaFetch);
    expect(viaTest?.status).toBe(204);
  });

  test("when the answer is a redirect, then testFetch gives it as it came, where fetch follows it", async () => {
    seen = [];
    const { response } = await through("testFetch").GET("/moved" as never, { parseAs: "stream" } as never);

    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/elsewhere");
    expect(seen.map((s) => s.url)).toEqual(["/moved"]);
  });

  test("when the body is not text (a Blob), then it goes through fetch and the server gets it whole", async () => {
    seen = [];
    const response = await testFetch(
      new TestRequest(`${baseUrl}/things`, { method: "POST", body: new Blob(["a binary body"]) }),
    );

    expect(response.status).toBe(200);
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([["POST", "/things", "a binary body"]]);
  });

  test("when nothing listens at the address, then the call fails as fetch's does: TypeError 'fetch failed' with the cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));

    const failure = (error: unknown) => ({
      type: (error as Error).constructor.name,
      message: (error as Error).message,
      cause: ((error as Error).cause as { code?: string }).code,
    });
    const viaFetch = await fetch(`${url}/x`).catch(failure);
    const viaTest = await testFetch(new TestRequest(`${url}/x`)).catch(failure);

    expect(viaTest).toEqual(viaFetch);
    expect(viaTest).toMatchObject({ type: "TypeError", message: "fetch failed", cause: "ECONNREFUSED" });
  });
});
