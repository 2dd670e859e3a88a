import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { verifyWebhook } from "../../../client/src/index.js";
import { postEvent } from "../../src/webhooks/deliver.js";
import { checkAddress, checkWebhookUrl, guardedLookup } from "../../src/webhooks/ssrf.js";
import { DeliveryWorker, retrySchedule } from "../../src/webhooks/worker.js";
import type { components } from "../../../generated/admin-api.js";
import {
  byId,
  chargeBody,
  expectStatus,
  operatorApi,
  publicApi,
  startTestServer,
  type TestServer,
  testAdminToken,
} from "../harness.js";
import { type Received, type ReceiverAnswer, startReceiver } from "../support/receiver.js";

let server: TestServer;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  server = await startTestServer({ allowLocalWebhooks: true });
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => server.close());

const admin = (on: TestServer = server) => operatorApi(on.baseUrl, { token: testAdminToken });
const api = (key: string) => publicApi(server.baseUrl, { key });
type EndpointInput = components["schemas"]["CreateWebhookEndpointRequest"];

const createEndpoint = (accountId: string, body: EndpointInput, on: TestServer = server) =>
  admin(on).POST("/admin/v1/accounts/{id}/webhook-endpoints", { ...byId(accountId), body });

/** The deliveries of an endpoint, newest first. */
async function deliveries(endpointId: string) {
  const res = await admin().GET("/admin/v1/webhook-endpoints/{id}/deliveries", byId(endpointId));
  expectStatus(res, 200);
  return res.body.data;
}

/** The newest delivery of an endpoint (there must be one). */
async function lastDelivery(endpointId: string) {
  const [delivery] = await deliveries(endpointId);
  if (!delivery) throw new Error(`no delivery for ${endpointId}`);
  return delivery;
}

const worker = (options: { timeoutMs?: number; claimSeconds?: number } = {}) =>
  new DeliveryWorker({
    store: server.store,
    clock: server.clock,
    logger: pino({ level: "silent" }),
    allowLoopbackForTest: true,
    ...options,
  });

async function setup(statuses: ReceiverAnswer[], events: EndpointInput["events"] = ["transaction.paid"]) {
  const hook = await startReceiver(statuses);
  closers.push(hook.close);
  const ctx = await server.newAccount();
  const endpoint = await createEndpoint(ctx.account.id, { url: hook.url, mode: "test", events });
  expectStatus(endpoint, 201);
  return { ...ctx, hook, endpoint: endpoint.body };
}

async function payCharge(key: string) {
  const charge = await api(key).POST("/api/v1/charges/pix", {
    body: chargeBody({ metadata: { orderId: "77", nested: { a: 1 } } }),
  });
  expectStatus(charge, 201);
  expectStatus(await api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id)), 200);
  return charge.body.id;
}

describe("webhook delivery", () => {
  test("when a charge is paid, then the endpoint receives the whole transaction with a valid signature", async () => {
    const { testKey, hook, endpoint } = await setup([200]);
    const id = await payCharge(testKey);

    expect(await worker().runOnce()).toBe(1);

    expect(hook.received).toHaveLength(1);
    const [got] = hook.received;
    const headers = got?.headers as Record<string, string>;
    const event = verifyWebhook(got?.body ?? "", headers, endpoint.secret);
    const transaction = await api(testKey).GET("/api/v1/transactions/{id}", byId(id));
    expect(event).toMatchObject({ type: "transaction.paid", livemode: false, apiVersion: "1.0.0" });
    expect(event.id).toBe(headers["webhook-id"]);
    expect(event.data.object).toEqual(transaction.body);
    expect(new Webhook(endpoint.secret).verify(got?.body ?? "", headers)).toMatchObject({ id: event.id });
    const delivery = await lastDelivery(endpoint.id);
    expect(delivery).toMatchObject({ status: "SUCCEEDED", nextAttemptAt: null });
    expect(delivery.attempts[0]).toMatchObject({ status: 200, error: null });
  });

  test("when a charge is paid while a started worker waits for its next poll, then the event arrives at once", async () => {
    const { testKey, hook } = await setup([200]);
    // The poll is a minute away: only the store's wake-up at commit can deliver within the wait.
    const running = new DeliveryWorker({
      store: server.store,
      clock: server.clock,
      logger: pino({ level: "silent" }),
      allowLoopbackForTest: true,
      pollMs: 60_000,
    });
    running.start();
    closers.push(() => running.stop());
    await new Promise((r) => setTimeout(r, 50));
    await payCharge(testKey);
    const deadline = Date.now() + 3_000;
    while (hook.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(hook.received).toHaveLength(1);
  });

  test("when the body is tampered with or signed by another secret, then verification fails", async () => {
    const { testKey, hook, endpoint } = await setup([200]);
    await payCharge(testKey);
    await worker().runOnce();
    const got = hook.received[0] as Received;
    const headers = got.headers as Record<string, string>;
    expect(() => verifyWebhook(got.body.replace('"PAID"', '"CANCELLED"'), headers, endpoint.secret)).toThrow();
    expect(() => verifyWebhook(got.body, headers, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toThrow();
  });

  test("when the receiver answers 500 then 200, then it sees one webhook-id twice, at the scheduled time", async () => {
    const { testKey, hook, endpoint } = await setup([500, 200]);
    await payCharge(testKey);
    const w = worker();
    await w.runOnce();
    expect(await w.runOnce()).toBe(0);

    server.clock.advance(retrySchedule[1] as number);
    server.clock.advance(1);
    await w.runOnce();

    expect(hook.received).toHaveLength(2);
    expect(hook.received[0]?.headers["webhook-id"]).toBe(hook.received[1]?.headers["webhook-id"]);
    const d = await lastDelivery(endpoint.id);
    expect(d.status).toBe("SUCCEEDED");
    expect(d.attempts.map((a) => a.status)).toEqual([500, 200]);
  });

  test("when a worker dies holding a claim, then another delivers once the claim lapses", async () => {
    const { testKey, hook } = await setup([200]);
    await payCharge(testKey);
    const now = server.clock.now().toISOString();
    // The dead worker: claimed for 60 s, then never attempted.
    const claimed = await server.store.transaction((tx) =>
      tx.deliveries.claimDue(now, new Date(Date.parse(now) + 60_000).toISOString(), 10),
    );
    expect(claimed).toHaveLength(1);
    const survivor = worker();
    expect(await survivor.runOnce()).toBe(0);

    server.clock.advance(61);
    expect(await survivor.runOnce()).toBe(1);
    expect(hook.received).toHaveLength(1);
  });

  test("when the receiver answers 410, then the endpoint is disabled and later events are not queued for it", async () => {
    const { testKey, account, hook, endpoint } = await setup([410]);
    await payCharge(testKey);
    await worker().runOnce();

    const list = await admin().GET("/admin/v1/accounts/{id}/webhook-endpoints", byId(account.id));
    expectStatus(list, 200);
    expect(list.body.data[0]).toMatchObject({ id: endpoint.id, enabled: false });
    const d = await lastDelivery(endpoint.id);
    expect(d).toMatchObject({ status: "FAILED", nextAttemptAt: null });
    await payCharge(testKey);
    expect(await deliveries(endpoint.id)).toHaveLength(1);
    expect(hook.received).toHaveLength(1);
  });

  test("when a 429 carries Retry-After, then the next attempt waits for it", async () => {
    const { testKey, endpoint } = await setup([{ status: 429, headers: { "retry-after": "120" } }, 200]);
    await payCharge(testKey);
    await worker().runOnce();
    const d = await lastDelivery(endpoint.id);
    const wait = (Date.parse(d.nextAttemptAt ?? "") - Date.parse(d.attempts[0]?.at ?? "")) / 1000;
    expect(wait).toBeGreaterThanOrEqual(120);
  });

  test("when the receiver redirects, then the redirect is not followed and the attempt fails", async () => {
    const target = await startReceiver([200]);
    closers.push(target.close);
    const { testKey, endpoint } = await setup([{ status: 302, headers: { location: target.url } }]);
    await payCharge(testKey);
    await worker().runOnce();
    expect(target.received).toHaveLength(0);
    const d = await lastDelivery(endpoint.id);
    expect(d).toMatchObject({ status: "PENDING" });
    expect(d.attempts[0]?.status).toBe(302);
  });

  test("when the receiver does not answer in time, then the attempt records the timeout and is rescheduled", async () => {
    const { testKey, endpoint } = await setup(["hang"]);
    await payCharge(testKey);
    await worker({ timeoutMs: 300 }).runOnce();
    const d = await lastDelivery(endpoint.id);
    expect(d.status).toBe("PENDING");
    expect(d.attempts[0]).toMatchObject({ status: null });
    expect(d.attempts[0]?.error).toMatch(/sem resposta|socket hang up/);
  });

  test("when every attempt fails, then after 10 attempts the delivery is FAILED", async () => {
    const { testKey, endpoint } = await setup([500]);
    await payCharge(testKey);
    const w = worker();
    for (let i = 0; i < 12; i++) {
      await w.runOnce();
      server.clock.advance(30 * 3600);
    }
    const d = await lastDelivery(endpoint.id);
    expect(d.attempts).toHaveLength(10);
    expect(d).toMatchObject({ status: "FAILED", nextAttemptAt: null });
  });

  test("when two workers run at once, then each delivery is attempted once", async () => {
    const { testKey, hook } = await setup([200]);
    for (let i = 0; i < 5; i++) await payCharge(testKey);
    const [a, b] = await Promise.all([worker().runOnce(), worker().runOnce()]);
    expect(a + b).toBe(5);
    expect(hook.received).toHaveLength(5);
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(5);
  });

  test("when the secret is rotated, then deliveries carry both signatures for 24 hours", async () => {
    const { testKey, hook, endpoint } = await setup([200]);
    const rotated = await admin().POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", byId(endpoint.id));
    expectStatus(rotated, 200);
    await payCharge(testKey);
    await worker().runOnce();
    const got = hook.received[0] as Received;
    const headers = got.headers as Record<string, string>;
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verifyWebhook(got.body, headers, endpoint.secret).type).toBe("transaction.paid");
    expect(verifyWebhook(got.body, headers, rotated.body.secret).type).toBe("transaction.paid");

    server.clock.advance(24 * 3600 + 1);
    await payCharge(testKey);
    await worker().runOnce();
    expect(String(hook.received[1]?.headers["webhook-signature"]).split(" ")).toHaveLength(1);
  });

  test("when an endpoint did not select an event kind, then it receives nothing for it", async () => {
    const { testKey, endpoint } = await setup([200], ["withdrawal.paid"]);
    await payCharge(testKey);
    expect(await deliveries(endpoint.id)).toHaveLength(0);
  });
});

describe("modes never cross", () => {
  test("when test and production endpoints exist, then each receives only its own mode's events", async () => {
    const { account, testKey, liveKey } = await server.newAccount({ releasePeriodDays: 0 });
    const make = async (mode: EndpointInput["mode"], url: string) => {
      const made = await createEndpoint(account.id, { url, mode, events: ["transaction.paid"] });
      expectStatus(made, 201);
      return made.body;
    };
    // Public IP literal for production: no DNS here, and no worker runs in this test.
    const live = await make("production", "https://93.184.215.14/hook");
    const test = await make("test", "http://127.0.0.1:9/hook");

    await payCharge(testKey);
    const charge = await api(liveKey as string).POST("/api/v1/charges/pix", { body: chargeBody() });
    expectStatus(charge, 201);
    expectStatus(await admin().POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.body.id)), 200);

    const testDeliveries = await deliveries(test.id);
    const liveDeliveries = await deliveries(live.id);
    expect(testDeliveries).toHaveLength(1);
    expect(liveDeliveries).toHaveLength(1);
    const event = async (id: string) => server.store.read.events.get(id);
    expect((await event(testDeliveries[0]?.eventId as string))?.livemode).toBe(false);
    expect((await event(liveDeliveries[0]?.eventId as string))?.livemode).toBe(true);
  });
});

describe("SSRF guard", () => {
  const production = { livemode: true, allowLoopbackForTest: false };
  test.each([
    { name: "plain http", url: "http://93.184.215.14/hook" },
    { name: "IPv4 loopback", url: "https://127.0.0.1/hook" },
    { name: "localhost by name", url: "https://localhost/hook" },
    { name: "private 10/8", url: "https://10.1.2.3/hook" },
    { name: "private 192.168/16", url: "https://192.168.0.10/hook" },
    { name: "private 172.16/12", url: "https://172.20.0.1/hook" },
    { name: "link-local metadata address", url: "https://169.254.169.254/latest" },
    { name: "unspecified", url: "https://0.0.0.0/hook" },
    { name: "multicast", url: "https://224.0.0.1/hook" },
    { name: "IPv6 loopback", url: "https://[::1]/hook" },
    { name: "IPv6 unique-local", url: "https://[fc00::1]/hook" },
    { name: "IPv6 link-local", url: "https://[fe80::1]/hook" },
    { name: "IPv6 multicast", url: "https://[ff02::1]/hook" },
    { name: "IPv6 unspecified", url: "https://[::]/hook" },
    { name: "IPv4-mapped loopback", url: "https://[::ffff:127.0.0.1]/hook" },
    { name: "IPv4-mapped private", url: "https://[::ffff:10.0.0.1]/hook" },
    { name: "IPv4-compatible loopback", url: "https://[::127.0.0.1]/" },
    { name: "IPv4-compatible link-local metadata address", url: "https://[::a9fe:a9fe]/" },
    { name: "IPv4-compatible private", url: "https://[::a00:1]/" },
    { name: "SIIT-translated private", url: "https://[::ffff:0:a00:1]/hook" },
    { name: "NAT64 loopback", url: "https://[64:ff9b::7f00:1]/hook" },
    { name: "NAT64 local-use prefix", url: "https://[64:ff9b:1::808:808]/hook" },
    { name: "6to4 of loopback", url: "https://[2002:7f00:1::1]/hook" },
    { name: "6to4 of private", url: "https://[2002:c0a8:1::1]/hook" },
    { name: "Teredo of a private client", url: "https://[2001:0:808:808:8000:63bf:f5ff:fffe]/hook" },
    { name: "IPv6 documentation range", url: "https://[2001:db8::1]/hook" },
    { name: "IPv6 discard-only range", url: "https://[100::1]/hook" },
    { name: "decimal-integer loopback host", url: "https://2130706433/hook" },
    { name: "octal-ish shorthand loopback host", url: "https://0177.1/hook" },
    { name: "credentials in the URL", url: "https://user:pw@93.184.215.14/hook" },
  ])("when a production endpoint is $name, then registration refuses it", async ({ url }) => {
    expect(await checkWebhookUrl(url, production)).not.toBeNull();
    const { account } = await server.newAccount();
    const res = await createEndpoint(account.id, { url, mode: "production", events: ["transaction.paid"] });
    expectStatus(res, 400);
    expect(res.body.errors?.[0]?.path).toBe("url");
  });

  test("when a production endpoint is a public https address, then it is accepted", async () => {
    expect(await checkWebhookUrl("https://93.184.215.14/hook", production)).toBeNull();
    expect(await checkWebhookUrl("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook", production)).toBeNull();
    expect(await checkWebhookUrl("https://[64:ff9b::808:808]/hook", production)).toBeNull();
    expect(await checkWebhookUrl("https://[2002:808:808::1]/hook", production)).toBeNull();
  });

  test("when a test endpoint is on loopback, then only PIX_ALLOW_LOCAL_WEBHOOKS allows it, and never private ranges", async () => {
    expect(
      await checkWebhookUrl("http://127.0.0.1:4000/x", { livemode: false, allowLoopbackForTest: false }),
    ).not.toBeNull();
    expect(
      await checkWebhookUrl("http://127.0.0.1:4000/x", { livemode: false, allowLoopbackForTest: true }),
    ).toBeNull();
    expect(await checkWebhookUrl("http://10.0.0.5/x", { livemode: false, allowLoopbackForTest: true })).not.toBeNull();
    expect(checkAddress("127.0.0.1", { livemode: true, allowLoopbackForTest: true })).not.toBeNull();
    const strict = await startTestServer();
    try {
      const { account } = await strict.newAccount();
      const res = await createEndpoint(
        account.id,
        { url: "http://127.0.0.1:4000/x", mode: "test", events: ["transaction.paid"] },
        strict,
      );
      expect(res.status).toBe(400);
    } finally {
      await strict.close();
    }
  });

  test("when a name resolves to a blocked address at connect time, then the connection is refused", async () => {
    const hook = await startReceiver([200]);
    closers.push(hook.close);
    const lookup = guardedLookup({ livemode: false, allowLoopbackForTest: false });
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup("localhost", {}, (e) => resolve(e)),
    );
    expect(error?.code).toBe("EADDRBLOCKED");
    const url = hook.url.replace("127.0.0.1", "localhost");
    const result = await postEvent(url, "{}", {}, { livemode: false, allowLoopbackForTest: false });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/bloqueado/);
    expect(hook.received).toHaveLength(0);
  });
});
