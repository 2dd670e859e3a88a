import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import {
  byId,
  chargeBody,
  expectStatus,
  operatorApi,
  publicApi,
  RealTimeClock,
  startTestServer,
  type TestServer,
  testAdminToken,
} from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { startReceiver } from "../support/receiver.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describePg("webhooks on PostgreSQL", () => {
  let database: TestDatabase;
  let server: TestServer;
  const stores: PostgresStore[] = [];
  const clock = new RealTimeClock();

  beforeAll(async () => {
    database = await createTestDatabase("webhooks");
    const store = new PostgresStore(createPool(database.url, { max: 4 }));
    stores.push(store);
    server = await startTestServer({ store, clock, allowLocalWebhooks: true });
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(stores.map((s) => s.close()));
    await database?.drop();
  });

  async function accountWithEndpoint(url: string) {
    const ctx = await server.newAccount();
    const endpoint = await admin().POST("/admin/v1/accounts/{id}/webhook-endpoints", {
      ...byId(ctx.account.id),
      body: { url, mode: "test", events: ["transaction.paid"] },
    });
    expectStatus(endpoint, 201);
    return { ...ctx, endpointId: endpoint.body.id };
  }

  const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });

  async function deliveries(endpointId: string) {
    const res = await admin().GET("/admin/v1/webhook-endpoints/{id}/deliveries", {
      params: { path: { id: endpointId }, query: { limit: 100 } },
    });
    expectStatus(res, 200);
    return res.body.data;
  }

  async function pay(key: string) {
    const api = publicApi(server.baseUrl, { key });
    const charge = await api.POST("/api/v1/charges/pix", { body: chargeBody() });
    expectStatus(charge, 201);
    expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id)), 200);
  }

  test("when three workers with their own pools share the database, then each delivery is attempted once", async () => {
    const hook = await startReceiver([200]);
    try {
      const { testKey, endpointId } = await accountWithEndpoint(hook.url);
      for (let i = 0; i < 12; i++) await pay(testKey);
      const workers = Array.from({ length: 3 }, () => {
        const store = new PostgresStore(createPool(database.url, { max: 2 }));
        stores.push(store);
        return new DeliveryWorker({
          store,
          clock,
          logger: pino({ level: "silent" }),
          allowLoopbackForTest: true,
          batch: 3,
        });
      });
      let total = 0;
      for (let round = 0; round < 10 && total < 12; round++) {
        const counts = await Promise.all(workers.map((w) => w.runOnce()));
        total += counts.reduce((a, b) => a + b, 0);
      }
      expect(total).toBe(12);
      expect(hook.received).toHaveLength(12);
      expect(new Set(hook.received.map((h) => h.headers["webhook-id"])).size).toBe(12);
      expect((await deliveries(endpointId)).every((d) => d.attempts.length === 1 && d.status === "SUCCEEDED")).toBe(
        true,
      );
    } finally {
      await hook.close();
    }
  });

  test("when a charge is paid in another process while a worker waits for its next poll, then NOTIFY wakes it", async () => {
    const hook = await startReceiver([200]);
    // Its own pool, as another process would have; the poll is a minute away.
    const store = new PostgresStore(createPool(database.url, { max: 2 }));
    stores.push(store);
    const worker = new DeliveryWorker({
      store,
      clock,
      logger: pino({ level: "silent" }),
      allowLoopbackForTest: true,
      pollMs: 60_000,
    });
    try {
      const { testKey } = await accountWithEndpoint(hook.url);
      worker.start();
      // The LISTEN connection is up once its first pass has run.
      await new Promise((r) => setTimeout(r, 500));
      await pay(testKey);
      const deadline = Date.now() + 5_000;
      while (hook.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(hook.received).toHaveLength(1);
    } finally {
      await worker.stop();
      await hook.close();
    }
  });

  test("when a commit of this process queues a delivery, then a worker of this process runs one pass for it, not a second for its own NOTIFY", async () => {
    const hook = await startReceiver([200]);
    // The server's store: the pay request commits on its pool, and the worker listens through it.
    const worker = new DeliveryWorker({
      store: server.store,
      clock,
      logger: pino({ level: "silent" }),
      allowLoopbackForTest: true,
      pollMs: 60_000,
    });
    let passes = 0;
    const runOnce = worker.runOnce.bind(worker);
    worker.runOnce = () => {
      passes++;
      return runOnce();
    };
    try {
      const { testKey } = await accountWithEndpoint(hook.url);
      worker.start();
      // The LISTEN connection is up once its first pass has run.
      await new Promise((r) => setTimeout(r, 500));
      const before = passes;
      await pay(testKey);
      const deadline = Date.now() + 5_000;
      while (hook.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      // Time for the trigger's NOTIFY to arrive and, were it heard, for its pass to start.
      await new Promise((r) => setTimeout(r, 300));
      expect(hook.received).toHaveLength(1);
      expect(passes - before).toBe(1);
    } finally {
      await worker.stop();
      hook.close();
    }
  });

  test("when the worker process is killed mid-delivery, then a restarted worker delivers the event", async () => {
    const hook = await startReceiver(["hang", 200]);
    // `node --import tsx` (not the tsx launcher): the pid is the worker itself, so killing it kills
    // the worker, not a launcher whose orphaned child might go on delivering.
    const startWorker = (): ChildProcess =>
      spawn(process.execPath, ["--import", "tsx", "server/src/webhooks/main.ts"], {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          PIX_ALLOW_LOCAL_WEBHOOKS: "1",
          PIX_WEBHOOK_CLAIM_SECONDS: "2",
          LOG_LEVEL: "warn",
        },
        stdio: "ignore",
      });
    const waitFor = async (condition: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return condition();
    };
    let first: ChildProcess | null = null;
    let second: ChildProcess | null = null;
    try {
      const { testKey, endpointId } = await accountWithEndpoint(hook.url);
      await pay(testKey);
      first = startWorker();
      expect(await waitFor(() => hook.received.length === 1, 20_000)).toBe(true);
      const firstPid = first.pid!;
      const firstExited = new Promise((resolve) => first!.once("exit", resolve));
      first.kill("SIGKILL");
      await firstExited;
      expect(() => process.kill(firstPid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));

      second = startWorker();
      expect(await waitFor(() => hook.received.length === 2, 20_000)).toBe(true);
      expect(hook.received[1]?.headers["webhook-id"]).toBe(hook.received[0]?.headers["webhook-id"]);
      // The worker records the attempt right after the 200: poll for it, bounded.
      let status = "";
      const deadline = Date.now() + 10_000;
      while (status !== "SUCCEEDED" && Date.now() < deadline) {
        status = (await deliveries(endpointId))[0]?.status ?? "";
        if (status !== "SUCCEEDED") await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe("SUCCEEDED");
    } finally {
      first?.kill("SIGKILL");
      second?.kill("SIGKILL");
      await hook.close();
    }
  }, 60_000);
});
