import { pino } from "pino";
import { afterEach, expect, test } from "vitest";
import { verifyWebhook } from "../../../client/src/index.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import { codeOf, type DashboardBrowser, signedUp, turnOnTwoFactor } from "../support/dashboard.js";
import { member } from "../support/members.js";
import { type ReceiverAnswer, startReceiver } from "../support/receiver.js";
import { eachStore, serverOn } from "../support/stores.js";

// The account's webhook endpoints in the dashboard (issue 25 §2) through the real HTTP stack on
// both stores, with a real receiver on 127.0.0.1 and the delivery worker: a test event arrives
// signed with the endpoint's secret, every attempt shows with its status, duration and the start of
// the answer, a delivery can be sent again, and production asks for a verified account and a
// step-up for its secrets.

type Mode = "test" | "production";
const inMode = (mode: Mode) => ({ params: { path: { mode } } });
const endpointIn = (mode: Mode, id: string) => ({ params: { path: { mode, id } } });

const operator = (server: TestServer) => operatorApi(server.baseUrl, { token: testAdminToken });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A receiver on 127.0.0.1 answering `answers` in turn, closed after the test. */
async function receiver(answers: ReceiverAnswer[] = [200]) {
  const hook = await startReceiver(answers);
  closers.push(hook.close);
  return hook;
}

/** One pass of the delivery worker over what is due at the server's clock. */
const deliverDue = (server: TestServer) =>
  new DeliveryWorker({
    store: server.store,
    clock: server.clock,
    logger: pino({ level: "silent" }),
    allowLoopbackForTest: true,
  }).runOnce();

/** A signed-up owner with a test endpoint on `url`: the browser, the account and the endpoint with its secret. */
async function withEndpoint(server: TestServer, url: string, events: "transaction.paid"[] = ["transaction.paid"]) {
  const { browser, session } = await signedUp(server);
  const created = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
    ...inMode("test"),
    body: { url, events },
  });
  expectStatus(created, 201);
  return { browser, accountId: session.account.id, endpoint: created.body };
}

async function deliveriesOf(browser: DashboardBrowser, mode: Mode, id: string) {
  const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries", {
    ...endpointIn(mode, id),
  });
  expectStatus(answer, 200);
  return answer.body.data;
}

for (const store of eachStore("dashboard_webhooks")) {
  store.describe(`dashboard webhook endpoints on the ${store.name} store`, () => {
    const server = serverOn(store, { allowLocalWebhooks: true });

    test("when a test event is sent, then the receiver gets it signed with the endpoint's secret, the attempt shows, and a resend arrives again", async () => {
      const hook = await receiver([{ status: 200, body: '{"recebido":true}' }]);
      const { browser, endpoint } = await withEndpoint(server, hook.url);

      const sent = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
        endpointIn("test", endpoint.id),
      );
      expectStatus(sent, 201);
      await deliverDue(server);
      const [got] = hook.received;
      const event = verifyWebhook(got?.body ?? "", got?.headers as Record<string, string>, endpoint.secret);
      const [delivery] = await deliveriesOf(browser, "test", endpoint.id);
      const resent = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries/{deliveryId}/resend",
        { params: { path: { mode: "test", id: endpoint.id, deliveryId: sent.body.id } } },
      );
      expectStatus(resent, 201);
      await deliverDue(server);

      expect(sent.body).toMatchObject({ eventType: "webhook.test", status: "PENDING", attempts: [] });
      expect(event).toMatchObject({
        id: sent.body.eventId,
        type: "webhook.test",
        livemode: false,
        apiVersion: "1.0.0",
        data: { object: { endpointId: endpoint.id, message: expect.stringContaining("teste") } },
      });
      expect(got?.headers["webhook-id"]).toBe(sent.body.eventId);
      expect(delivery).toMatchObject({ id: sent.body.id, status: "SUCCEEDED", nextAttemptAt: null });
      expect(delivery?.attempts).toEqual([
        {
          at: server.clock.now().toISOString(),
          status: 200,
          durationMs: expect.any(Number),
          error: null,
          responseBody: '{"recebido":true}',
        },
      ]);
      expect(resent.body).toMatchObject({ eventId: sent.body.eventId, eventType: "webhook.test" });
      expect(resent.body.id).not.toBe(sent.body.id);
      expect(hook.received).toHaveLength(2);
      expect(hook.received[1]?.headers["webhook-id"]).toBe(sent.body.eventId);
      expect((await deliveriesOf(browser, "test", endpoint.id)).map((d) => [d.id, d.status])).toEqual([
        [resent.body.id, "SUCCEEDED"],
        [sent.body.id, "SUCCEEDED"],
      ]);
    });

    test("when a test event is refused, then it is tried once, with the answer's status and first bytes", async () => {
      const long = `${"é".repeat(600)}fim`;
      const hook = await receiver([{ status: 503, body: long }]);
      const { browser, endpoint } = await withEndpoint(server, hook.url);

      const sent = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
        endpointIn("test", endpoint.id),
      );
      expectStatus(sent, 201);
      await deliverDue(server);
      // Past the first retries' time (5 s, 5 min): a recorded event's delivery would be tried again.
      server.clock.advance(600);
      await deliverDue(server);
      const [delivery] = await deliveriesOf(browser, "test", endpoint.id);
      const events = await publicApi(server.baseUrl, { key: (await server.newAccount()).testKey }).GET(
        "/api/v1/events",
      );

      expect(hook.received).toHaveLength(1);
      expect(delivery).toMatchObject({ status: "FAILED", nextAttemptAt: null });
      expect(delivery?.attempts).toHaveLength(1);
      // 1 024 bytes of a body of two-byte characters: 512 of them, none cut in half.
      expect(delivery?.attempts[0]).toMatchObject({ status: 503, error: null, responseBody: "é".repeat(512) });
      expectStatus(events, 200);
      expect(events.body.data.filter((e) => (e.id as string) === sent.body.eventId)).toEqual([]);
    });

    test("when a paid charge's delivery fails then succeeds, then the endpoint's deliveries show both attempts", async () => {
      const hook = await receiver([{ status: 500, body: "erro" }, 200]);
      const { browser, accountId, endpoint } = await withEndpoint(server, hook.url);
      const key = await operator(server).POST("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
        body: { name: "loja", mode: "test" },
      });
      expectStatus(key, 201);
      const api = publicApi(server.baseUrl, { key: key.body.secret });
      const charge = await api.POST("/api/v1/charges/pix", { body: chargeBody() });
      expectStatus(charge, 201);
      expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id)), 200);

      await deliverDue(server);
      server.clock.advance(10);
      await deliverDue(server);
      const [delivery] = await deliveriesOf(browser, "test", endpoint.id);
      const viewerOfOperator = await operator(server).GET("/admin/v1/webhook-endpoints/{id}/deliveries", {
        ...byId(endpoint.id),
      });

      expect(delivery).toMatchObject({ eventType: "transaction.paid", status: "SUCCEEDED" });
      expect(delivery?.attempts.map((a) => [a.status, a.responseBody])).toEqual([
        [500, "erro"],
        [200, "ok"],
      ]);
      expectStatus(viewerOfOperator, 200);
      expect(viewerOfOperator.body.data[0]?.attempts).toEqual(delivery?.attempts);
    });

    test("when the secret is revealed and rotated, then deliveries are signed with the new one and the old one beside it", async () => {
      const hook = await receiver([200]);
      const { browser, endpoint } = await withEndpoint(server, hook.url);

      const revealed = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret",
        endpointIn("test", endpoint.id),
      );
      const rotated = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/rotate-secret",
        endpointIn("test", endpoint.id),
      );
      expectStatus(rotated, 200);
      expectStatus(
        await browser.api.POST(
          "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
          endpointIn("test", endpoint.id),
        ),
        201,
      );
      await deliverDue(server);
      const [got] = hook.received;
      const headers = got?.headers as Record<string, string>;

      expectStatus(revealed, 200);
      expect(revealed.body).toEqual({ secret: endpoint.secret });
      expect(rotated.body.secret).not.toBe(endpoint.secret);
      expect(verifyWebhook(got?.body ?? "", headers, rotated.body.secret).type).toBe("webhook.test");
      expect(verifyWebhook(got?.body ?? "", headers, endpoint.secret).type).toBe("webhook.test");
    });

    test("when an endpoint is disabled, then nothing is sent to it until it is enabled again, and its URL and kinds change", async () => {
      const hook = await receiver([200]);
      const other = await receiver([200]);
      const { browser, endpoint } = await withEndpoint(server, hook.url);

      const disabled = await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
        ...endpointIn("test", endpoint.id),
        body: { enabled: false },
      });
      const refused = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
        endpointIn("test", endpoint.id),
      );
      const changed = await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
        ...endpointIn("test", endpoint.id),
        body: { enabled: true, url: other.url, events: ["withdrawal.paid", "transaction.paid"] },
      });
      const sent = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
        endpointIn("test", endpoint.id),
      );
      await deliverDue(server);
      const list = await browser.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints", inMode("test"));

      expectStatus(disabled, 200);
      expect(disabled.body.enabled).toBe(false);
      expectStatus(refused, 400);
      expect(refused.body.code).toBe("REQUEST_ERROR");
      expectStatus(changed, 200);
      expect(changed.body).toMatchObject({
        enabled: true,
        url: other.url,
        events: ["withdrawal.paid", "transaction.paid"],
      });
      expectStatus(sent, 201);
      expect(hook.received).toHaveLength(0);
      expect(other.received).toHaveLength(1);
      expectStatus(list, 200);
      expect(list.body.data).toEqual([changed.body]);
      expect(JSON.stringify(list.body)).not.toContain(endpoint.secret);
    });

    test("when an endpoint is created, changed, its secret revealed and rotated, a test sent and resent, then the audit log has each and never a secret", async () => {
      const hook = await receiver([200]);
      const { browser, endpoint } = await withEndpoint(server, hook.url);
      const path = endpointIn("test", endpoint.id);
      expectStatus(
        await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
          ...path,
          body: { enabled: false },
        }),
        200,
      );
      expectStatus(
        await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
          ...path,
          body: { enabled: true },
        }),
        200,
      );
      const revealed = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret", path);
      const rotated = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/rotate-secret", path);
      const sent = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events", path);
      expectStatus(revealed, 200);
      expectStatus(rotated, 200);
      expectStatus(sent, 201);
      const resent = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries/{deliveryId}/resend",
        { params: { path: { mode: "test", id: endpoint.id, deliveryId: sent.body.id } } },
      );
      expectStatus(resent, 201);

      const log = await browser.api.GET("/dashboard/v1/audit-log", { params: { query: { limit: 100 } } });
      expectStatus(log, 200);
      const entries = log.body.data
        .filter((e) => e.target.id === endpoint.id || e.target.id === sent.body.eventId)
        .reverse();

      expect(entries.map((e) => e.action)).toEqual([
        "webhook_endpoint.created",
        "webhook_endpoint.updated",
        "webhook_endpoint.updated",
        "webhook_endpoint.secret_revealed",
        "webhook_endpoint.secret_rotated",
        "webhook_endpoint.test_sent",
        "event.resent",
      ]);
      expect(entries[1]?.changes).toEqual({ enabled: { from: true, to: false } });
      expect(entries[6]?.changes).toMatchObject({ deliveries: { from: null, to: [resent.body.id] } });
      const text = JSON.stringify(entries);
      for (const secret of [endpoint.secret, rotated.body.secret]) {
        expect(text).not.toContain(secret.slice("whsec_".length));
      }
    });

    test("when production endpoints are managed, then a verified account, a public https address and a step-up are required, and a step-up for the secret", async () => {
      const { browser, session, person } = await signedUp(server);
      const accountId = session.account.id;
      // A public address written as such: registration resolves names, and this network has no DNS.
      const body = { url: "https://8.8.8.8/webhooks/pix", events: ["transaction.paid" as const] };
      const unverified = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body,
      });
      expectStatus(
        await operator(server).PATCH("/admin/v1/accounts/{id}", {
          params: { path: { id: accountId } },
          body: { verified: true },
        }),
        200,
      );
      const loopback = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body: { ...body, url: "https://127.0.0.1/webhooks" },
      });
      const plainHttp = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body: { ...body, url: "http://8.8.8.8/webhooks" },
      });
      const withoutStepUp = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body,
      });
      await turnOnTwoFactor(server, browser, person.password);
      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body,
      });
      expectStatus(created, 201);
      server.clock.advance(601);
      const reveal = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret",
        endpointIn("production", created.body.id),
      );
      const rotate = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/rotate-secret",
        endpointIn("production", created.body.id),
      );
      const inTestMode = await browser.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints", inMode("test"));

      expectStatus(unverified, 403);
      expect(unverified.body.code).toBe("ACCOUNT_NOT_ACTIVE");
      expectStatus(loopback, 400);
      expect(loopback.body.errors?.[0]?.path).toBe("url");
      expectStatus(plainHttp, 400);
      expect(plainHttp.body.errors?.[0]?.path).toBe("url");
      expectStatus(withoutStepUp, 403);
      expect(withoutStepUp.body.code).toBe("STEP_UP_REQUIRED");
      expect(created.body).toMatchObject({ mode: "production", enabled: true, url: body.url });
      expect(created.body.secret).toMatch(/^whsec_/);
      for (const refused of [reveal, rotate]) {
        expectStatus(refused, 403);
        expect(refused.body.code).toBe("STEP_UP_REQUIRED");
      }
      expectStatus(inTestMode, 200);
      expect(inTestMode.body.data).toEqual([]);
      const listed = await browser.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints", inMode("production"));
      expectStatus(listed, 200);
      expect(listed.body.data.map((e) => e.id)).toEqual([created.body.id]);
    });

    test("when a production endpoint is re-pointed, then only within a step-up, and its events or disabling need none", async () => {
      const { browser, session, person } = await signedUp(server);
      expectStatus(
        await operator(server).PATCH("/admin/v1/accounts/{id}", {
          ...byId(session.account.id),
          body: { verified: true },
        }),
        200,
      );
      await turnOnTwoFactor(server, browser, person.password);
      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body: { url: "https://8.8.8.8/webhooks/pix", events: ["transaction.paid"] },
      });
      expectStatus(created, 201);
      server.clock.advance(601);
      const path = endpointIn("production", created.body.id);

      const repointed = await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
        ...path,
        body: { url: "https://8.8.4.4/captura" },
      });
      const events = await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
        ...path,
        body: { events: ["transaction.paid", "withdrawal.paid"] },
      });
      const disabled = await browser.api.PATCH("/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
        ...path,
        body: { enabled: false },
      });
      const testEndpoint = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("test"),
        body: { url: "https://8.8.8.8/webhooks/teste", events: ["transaction.paid"] },
      });

      expectStatus(repointed, 403);
      expect(repointed.body.code).toBe("STEP_UP_REQUIRED");
      expectStatus(events, 200);
      expect(events.body).toMatchObject({
        url: "https://8.8.8.8/webhooks/pix",
        events: ["transaction.paid", "withdrawal.paid"],
      });
      expectStatus(disabled, 200);
      expect(disabled.body.enabled).toBe(false);
      expectStatus(testEndpoint, 201);
      const listed = await browser.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints", inMode("production"));
      expectStatus(listed, 200);
      expect(listed.body.data[0]?.url).toBe("https://8.8.8.8/webhooks/pix");
    });

    test("when a production secret is revealed, then only within a step-up; a viewer sees endpoints but no secret", async () => {
      const { browser, session, person } = await signedUp(server);
      const accountId = session.account.id;
      await turnOnTwoFactor(server, browser, person.password);
      expectStatus(
        await operator(server).PATCH("/admin/v1/accounts/{id}", {
          params: { path: { id: accountId } },
          body: { verified: true },
        }),
        200,
      );
      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body: { url: "https://8.8.8.8/webhooks/pix", events: ["transaction.paid"] },
      });
      expectStatus(created, 201);
      const viewer = await member(server, accountId, "viewer");

      const steppedUp = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret",
        endpointIn("production", created.body.id),
      );
      const wrongMode = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret",
        endpointIn("test", created.body.id),
      );
      const viewerReveals = await viewer.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret",
        endpointIn("production", created.body.id),
      );
      const viewerTests = await viewer.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
        endpointIn("production", created.body.id),
      );
      const viewerLists = await viewer.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints", inMode("production"));
      server.clock.advance(601);
      const later = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret",
        endpointIn("production", created.body.id),
      );

      expectStatus(steppedUp, 200);
      expect(steppedUp.body.secret).toBe(created.body.secret);
      expectStatus(wrongMode, 404);
      for (const refused of [viewerReveals, viewerTests]) {
        expectStatus(refused, 403);
        expect(refused.body.code).toBe("ROLE_FORBIDDEN");
      }
      expectStatus(viewerLists, 200);
      expect(viewerLists.body.data.map((e) => e.id)).toEqual([created.body.id]);
      expect(JSON.stringify(viewerLists.body)).not.toContain(created.body.secret);
      expectStatus(later, 403);
      expect(later.body.code).toBe("STEP_UP_REQUIRED");
    });

    test("when an endpoint is deleted, then it leaves the list, its pending delivery is never sent, and the audit log has it; in production only within a step-up, never by a viewer", async () => {
      const hook = await receiver([200]);
      const { browser, accountId, endpoint } = await withEndpoint(server, hook.url);
      expectStatus(
        await browser.api.POST(
          "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events",
          endpointIn("test", endpoint.id),
        ),
        201,
      );
      const viewer = await member(server, accountId, "viewer");
      const byViewer = await viewer.api.DELETE(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}",
        endpointIn("test", endpoint.id),
      );
      const deleted = await browser.api.DELETE(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}",
        endpointIn("test", endpoint.id),
      );
      const again = await browser.api.DELETE(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}",
        endpointIn("test", endpoint.id),
      );
      await deliverDue(server);

      expectStatus(byViewer, 403);
      expect(byViewer.body.code).toBe("ROLE_FORBIDDEN");
      expectStatus(deleted, 204);
      expectStatus(again, 404);
      expect(hook.received).toHaveLength(0);
      const listed = await browser.api.GET("/dashboard/v1/modes/{mode}/webhook-endpoints", inMode("test"));
      expectStatus(listed, 200);
      expect(listed.body.data).toEqual([]);
      const log = await browser.api.GET("/dashboard/v1/audit-log", { params: { query: { limit: 100 } } });
      expectStatus(log, 200);
      expect(log.body.data.map((e) => e.action)).toContain("webhook_endpoint.deleted");

      // Production: a verified account with two-factor authentication; past the step-up's 10 minutes, refused.
      const owner = await signedUp(server);
      expectStatus(
        await operator(server).PATCH("/admin/v1/accounts/{id}", {
          ...byId(owner.session.account.id),
          body: { verified: true },
        }),
        200,
      );
      const { secret } = await turnOnTwoFactor(server, owner.browser, owner.person.password);
      const live = await owner.browser.api.POST("/dashboard/v1/modes/{mode}/webhook-endpoints", {
        ...inMode("production"),
        body: { url: "https://8.8.8.8/webhooks/pix", events: ["transaction.paid"] },
      });
      expectStatus(live, 201);
      server.clock.advance(601);
      const refused = await owner.browser.api.DELETE(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}",
        endpointIn("production", live.body.id),
      );
      expectStatus(refused, 403);
      expect(refused.body.code).toBe("STEP_UP_REQUIRED");
      expectStatus(
        await owner.browser.api.POST("/dashboard/v1/session/step-up", { body: { code: codeOf(server, secret) } }),
        201,
      );
      const allowed = await owner.browser.api.DELETE(
        "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}",
        endpointIn("production", live.body.id),
      );
      expectStatus(allowed, 204);
    });
  });
}
