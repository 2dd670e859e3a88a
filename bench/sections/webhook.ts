import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { Store } from "../../server/src/domain/ports/store.js";
import { DeliveryWorker } from "../../server/src/webhooks/worker.js";
import {
  bodyOf,
  byId,
  chargeBody,
  operatorApi,
  publicApi,
  RealTimeClock,
  startTestServer,
  testAdminToken,
} from "../../server/test/harness.js";
import { percentile } from "../lib/load.js";

/**
 * From the sandbox payment of a charge to a loopback receiver getting its `transaction.paid`,
 * with the delivery worker running as in production: p50 and p95 over `count` charges, after one
 * warm-up charge.
 */
export async function webhookLatency(count: number, store?: Store): Promise<{ p50: number; p95: number }> {
  const clock = new RealTimeClock();
  const server = await startTestServer({ allowLocalWebhooks: true, clock, ...(store ? { store } : {}) });
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const event = JSON.parse(body) as { data: { object: { id: string } } };
      arrivals.set(event.data.object.id, performance.now());
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const worker = new DeliveryWorker({
    store: server.store,
    clock,
    logger: pino({ level: "silent" }),
    allowLoopbackForTest: true,
  });
  try {
    const { testKey, account } = await server.newAccount();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await bodyOf(
      operatorApi(server.baseUrl, { token: testAdminToken }).POST("/admin/v1/accounts/{id}/webhook-endpoints", {
        ...byId(account.id),
        body: { url, mode: "test", events: ["transaction.paid"] },
      }),
      201,
    );
    const api = publicApi(server.baseUrl, { key: testKey });
    worker.start();
    const latencies: number[] = [];
    // One round first, not counted: it compiles the routes' validators and opens the connections.
    for (let i = -1; i < count; i++) {
      const charge = await bodyOf(api.POST("/api/v1/charges/pix", { body: chargeBody() }), 201);
      const paidAt = performance.now();
      await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id));
      const deadline = performance.now() + 5000;
      while (!arrivals.has(charge.id) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      if (i >= 0) latencies.push((arrivals.get(charge.id) ?? Infinity) - paidAt);
    }
    return { p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
  } finally {
    await worker.stop();
    receiver.close();
    await server.close();
  }
}
