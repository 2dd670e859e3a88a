/**
 * `npm run bench`: speed targets, measured rather than asserted in unit tests (machines are noisy).
 *
 * - create-charge latency on the memory store (sequential and 20 concurrent clients)
 * - webhook latency: from the sandbox payment to the receiver, with the worker polling as in
 *   production; target: a paid charge reaches a healthy endpoint within 2 seconds (p95)
 * - BR Code generation throughput
 *
 * Exits non-zero when a target is missed. Everything stays on 127.0.0.1 and is bounded.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { buildBrCode } from "../server/src/pix/brcode.js";
import { DeliveryWorker } from "../server/src/webhooks/worker.js";
import { call, chargeBody, RealTimeClock, startTestServer, testAdminToken } from "../server/test/harness.js";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const results: { name: string; value: string; target?: string; ok: boolean }[] = [];

const clock = new RealTimeClock();
const server = await startTestServer({ allowLocalWebhooks: true, clock });
const { testKey, account } = await server.newAccount({ releasePeriodDays: 0 });

// 1. Create-charge latency.
const sequential: number[] = [];
for (let i = 0; i < 200; i++) {
  const t = performance.now();
  const res = await call(server.baseUrl, "POST", "/api/v1/charges/pix", { key: testKey, body: chargeBody() });
  if (res.status !== 201) throw new Error(`create failed: ${res.status}`);
  sequential.push(performance.now() - t);
}
const p95 = percentile(sequential, 95);
results.push({
  name: "create charge p95 (sequential, 200)",
  value: `${p95.toFixed(1)} ms`,
  target: "< 50 ms",
  ok: p95 < 50,
});

const started = performance.now();
let done = 0;
await Promise.all(
  Array.from({ length: 20 }, async () => {
    for (let i = 0; i < 25; i++) {
      await call(server.baseUrl, "POST", "/api/v1/charges/pix", { key: testKey, body: chargeBody() });
      done++;
    }
  }),
);
const rps = done / ((performance.now() - started) / 1000);
results.push({
  name: "create charge throughput (20 clients)",
  value: `${rps.toFixed(0)} req/s`,
  target: "> 100 req/s",
  ok: rps > 100,
});

// 2. Webhook latency with the polling worker.
const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    arrivals.set(String(req.headers["webhook-id"]), performance.now());
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
await call(server.baseUrl, "POST", `/admin/v1/accounts/${account.id}/webhook-endpoints`, {
  admin: testAdminToken,
  body: { url, mode: "test", events: ["transaction.paid"] },
});
const worker = new DeliveryWorker({
  store: server.store,
  clock,
  logger: pino({ level: "silent" }),
  allowLoopbackForTest: true,
});
worker.start();
const latencies: number[] = [];
for (let i = 0; i < 20; i++) {
  const charge = await call(server.baseUrl, "POST", "/api/v1/charges/pix", { key: testKey, body: chargeBody() });
  const paidAt = performance.now();
  await call(server.baseUrl, "POST", `/api/v1/sandbox/transactions/${charge.body.id}/pay`, { key: testKey });
  const events = await server.store.read.events.list({ accountId: account.id, livemode: false });
  const eventId = events.find((e) => (e.payload.data as { object: { id: string } }).object.id === charge.body.id)?.id;
  const deadline = performance.now() + 5000;
  while (!arrivals.has(String(eventId)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  latencies.push((arrivals.get(String(eventId)) ?? Infinity) - paidAt);
}
await worker.stop();
receiver.close();
const webhookP95 = percentile(latencies, 95);
results.push({
  name: "paid charge → webhook received, p95 (20)",
  value: `${webhookP95.toFixed(0)} ms`,
  target: "< 2000 ms",
  ok: webhookP95 < 2000,
});

// 3. BR Code generation.
const n = 20_000;
const t0 = performance.now();
for (let i = 0; i < n; i++) {
  buildBrCode({
    pixKey: account.pixKey,
    merchantName: "Loja Exemplo",
    merchantCity: "Sao Paulo",
    amountCents: 1000 + i,
    txid: `txn${i}`,
  });
}
const perSecond = n / ((performance.now() - t0) / 1000);
results.push({
  name: "BR Code generation",
  value: `${perSecond.toFixed(0)} /s`,
  target: "> 5000 /s",
  ok: perSecond > 5000,
});

await server.close();
for (const r of results)
  console.log(`${r.ok ? "ok  " : "MISS"}  ${r.name.padEnd(44)} ${r.value.padStart(12)}  ${r.target ?? ""}`);
const passed = results.filter((r) => r.ok).length;
console.log(`bench: ${passed} passed, ${results.length - passed} failed`);
process.exitCode = passed === results.length ? 0 : 1;
