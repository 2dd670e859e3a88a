import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { proxyVerdict, type RunningPrism, startPrism } from "../scripts/prism.js";

// The proxy check of the differential suite can fail: `prism proxy --errors` in front of a tiny
// fake upstream that answers what the test tells it, valid or not.

const ports = inject("ports");
const balance = {
  availableCents: 125000,
  pendingCents: 0,
  blockedCents: 0,
  withdrawableNowCents: 125000,
  withdrawFeeCents: 80,
  livemode: false,
};
/** What the fake upstream answers, by the `x-fake` request header. */
const answers: Record<string, { status: number; body: unknown }> = {
  valid: { status: 200, body: balance },
  "wrong-type": { status: 200, body: { ...balance, availableCents: "muito" } },
  "missing-field": { status: 200, body: { availableCents: 1 } },
  "undeclared-status": { status: 418, body: { ok: false } },
};

let upstream: Server;
let prism: RunningPrism;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    const answer = answers[String(req.headers["x-fake"])] ?? { status: 500, body: {} };
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((done) => upstream.listen(ports.fakeUpstream, "127.0.0.1", done));
  prism = await startPrism({
    port: ports.fakeProxy,
    document: "generated/openapi.yaml",
    proxy: `http://127.0.0.1:${ports.fakeUpstream}`,
  });
});
afterAll(async () => {
  await prism?.stop();
  await new Promise((done) => upstream?.close(done));
});

async function through(fake: string, headers: Record<string, string> = { "x-api-key": "svc_test_qualquer" }) {
  const res = await fetch(`${prism.baseUrl}/api/v1/balance`, { headers: { ...headers, "x-fake": fake } });
  const text = await res.text();
  const body: unknown = text ? JSON.parse(text) : undefined;
  return { status: res.status, verdict: proxyVerdict(res.headers, body) };
}

describe("prism proxy --errors (the check the differential suite relies on)", () => {
  test("when the upstream answers a body the document allows, then the verdict is clean", async () => {
    expect(await through("valid")).toEqual({ status: 200, verdict: { kind: "clean" } });
  });

  test.each([
    { fake: "wrong-type", finding: "availableCents" },
    { fake: "missing-field", finding: "pendingCents" },
  ])("when the upstream's body breaks the schema ($fake), then 500 with the violation named", async (c) => {
    const res = await through(c.fake);
    expect(res.status).toBe(500);
    expect(res.verdict.kind).toBe("violation");
    expect(JSON.stringify(res.verdict)).toContain(c.finding);
  });

  test("when the upstream answers a status the operation does not declare, then it is flagged too", async () => {
    const res = await through("undeclared-status");
    expect(res.verdict.kind).toBe("violation");
    expect(JSON.stringify(res.verdict)).toContain("Unable to match the returned status code");
  });

  test("when the request itself breaks the document (no key), then Prism answers it and the upstream is not asked", async () => {
    const res = await through("valid", {});
    expect(res.status).toBe(401);
    expect(res.verdict).toEqual({ kind: "request-refused", type: "https://stoplight.io/prism/errors#UNAUTHORIZED" });
  });
});
