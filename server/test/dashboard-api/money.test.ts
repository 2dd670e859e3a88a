import { Secret, TOTP } from "otpauth";
import { pino } from "pino";
import { afterAll, beforeAll, expect, test } from "vitest";
import { insertCharge, type NewCharge } from "../../src/domain/payments/index.js";
import type { Role } from "../../src/domain/identity/model.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import { chargePayer } from "../support/fixtures.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import { type DashboardBrowser, addMember, dashboardBrowser, signedUp, turnOnTwoFactor } from "../support/dashboard.js";
import { startReceiver } from "../support/receiver.js";
import { eachStore, serverOn } from "../support/stores.js";

// Money and objects of the dashboard (issue 25 §2) through the real HTTP stack on both stores: the
// user's own account in the mode of the path, with the public API's models and use cases; roles,
// step-up, production before verification, idempotency, notes and tags, a transaction's timeline,
// and the sandbox of test mode.

const operator = (server: TestServer) => operatorApi(server.baseUrl, { token: testAdminToken });
const mode = (m: "test" | "production") => ({ params: { path: { mode: m } } });
const inMode = (m: "test" | "production", id: string) => ({ params: { path: { mode: m, id } } });

/** A merchant signed up in the dashboard (its owner's browser), with a test key the operator made. */
async function merchant(server: TestServer) {
  const { browser, person, session } = await signedUp(server);
  const accountId = session.account.id;
  const key = await operator(server).POST("/admin/v1/accounts/{id}/api-keys", {
    ...byId(accountId),
    body: { name: "loja", mode: "test", permissions: ["charges:write", "transactions:read", "customers:read"] },
  });
  expectStatus(key, 201);
  return { browser, person, accountId, api: publicApi(server.baseUrl, { key: key.body.secret }) };
}

/** A test charge of the merchant, paid in the sandbox: its id and its net amount. */
async function paidCharge(api: ReturnType<typeof publicApi>, amountCents = 10_000) {
  const created = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
  expectStatus(created, 201);
  const paid = await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(created.body.id));
  expectStatus(paid, 200);
  return { id: paid.body.id, net: paid.body.netAmountCents };
}

/** Another member of the account with `role`, logged in: its browser. */
async function member(server: TestServer, accountId: string, role: Role): Promise<DashboardBrowser> {
  const { email, password } = await addMember(server, accountId, role);
  const browser = dashboardBrowser(server.baseUrl);
  expectStatus(await browser.api.POST("/dashboard/v1/session", { body: { email, password } }), 201);
  return browser;
}

/** The code the authenticator app shows at the server's (manual) clock. */
const codeOf = (server: TestServer, secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: server.clock.now().getTime() });

/** Turns two-factor authentication on and steps up (for the next 10 minutes): its secret. */
async function steppedUp(server: TestServer, browser: DashboardBrowser, password: string): Promise<string> {
  return (await turnOnTwoFactor(server, browser, password)).secret;
}

const release = (browser: DashboardBrowser) =>
  browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/balance/release", mode("test"));

const withdrawal = { amountCents: 5_000, pixKey: "52998224725", pixKeyType: "CPF" } as const;

for (const store of eachStore("dashboard_money")) {
  store.describe(`dashboard money and objects on the ${store.name} store`, () => {
    const server = serverOn(store, { allowLocalWebhooks: true });
    const closers: (() => Promise<void>)[] = [];
    afterAll(() => Promise.all(closers.map((close) => close())));
    // The first requests of a server build its request checks (each document's) and hash a first
    // password: done once here, within the hook's time, not in the first test's.
    beforeAll(async () => {
      await paidCharge((await merchant(server)).api);
    }, 120_000);

    test("when a user reads the balance of each mode, then test mode has its paid charge pending and production is empty", async () => {
      const { browser, api } = await merchant(server);
      const { net } = await paidCharge(api);

      const testMode = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("test"));
      const production = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("production"));
      const other = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("live" as "test"));

      expectStatus(testMode, 200);
      expect(testMode.body).toMatchObject({ availableCents: 0, pendingCents: net, livemode: false });
      expectStatus(production, 200);
      expect(production.body).toMatchObject({ availableCents: 0, pendingCents: 0, blockedCents: 0, livemode: true });
      expect(other.status).toBe(400);
    });

    test("when charges exist in test mode and in another account, then each list and read sees only its own account's mode", async () => {
      const { browser, api } = await merchant(server);
      const stranger = await merchant(server);
      const { id: mine } = await paidCharge(api);
      const { id: theirs } = await paidCharge(stranger.api);

      const testList = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", mode("test"));
      const productionList = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", mode("production"));
      const paidOnly = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
        params: { path: { mode: "test" }, query: { status: "WAITING_PAYMENT" } },
      });
      const inProduction = await browser.api.GET(
        "/dashboard/v1/modes/{mode}/transactions/{id}",
        inMode("production", mine),
      );
      const ofAnother = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions/{id}", inMode("test", theirs));
      const refundOfAnother = await browser.api.POST("/dashboard/v1/modes/{mode}/transactions/{id}/refunds", {
        ...inMode("test", theirs),
        body: {},
      });

      expectStatus(testList, 200);
      expect(testList.body.data.map((t) => t.id)).toEqual([mine]);
      expectStatus(productionList, 200);
      expect(productionList.body).toEqual({ data: [], hasMore: false });
      expectStatus(paidOnly, 200);
      expect(paidOnly.body.data).toEqual([]);
      expect([inProduction.status, ofAnother.status, refundOfAnother.status]).toEqual([404, 404, 404]);
    });

    test("when a viewer and a developer act, then they read but cannot refund or withdraw, and only money roles see a withdrawable balance", async () => {
      const { browser, api, accountId } = await merchant(server);
      const { id: charge, net } = await paidCharge(api);
      expectStatus(await release(browser), 200);
      const viewer = await member(server, accountId, "viewer");
      const developer = await member(server, accountId, "developer");

      const viewerReads = await viewer.api.GET("/dashboard/v1/modes/{mode}/transactions/{id}", inMode("test", charge));
      const viewerRefund = await viewer.api.POST("/dashboard/v1/modes/{mode}/transactions/{id}/refunds", {
        ...inMode("test", charge),
        body: {},
      });
      const viewerWithdraws = await viewer.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
        ...mode("test"),
        body: withdrawal,
      });
      const developerWithdraws = await developer.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
        ...mode("test"),
        body: withdrawal,
      });
      const developerEvents = await developer.api.GET("/dashboard/v1/modes/{mode}/events", mode("test"));
      const developerBalance = await developer.api.GET("/dashboard/v1/modes/{mode}/balance", mode("test"));
      const ownerBalance = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("test"));

      expectStatus(viewerReads, 200);
      expect(viewerReads.body.transaction.id).toBe(charge);
      for (const refused of [viewerRefund, viewerWithdraws, developerWithdraws]) {
        expectStatus(refused, 403);
        expect(refused.body.code).toBe("ROLE_FORBIDDEN");
      }
      expectStatus(developerEvents, 200);
      expect(developerEvents.body.data.map((e) => e.type)).toEqual(["transaction.paid"]);
      expectStatus(developerBalance, 200);
      expectStatus(ownerBalance, 200);
      expect(ownerBalance.body.availableCents).toBe(net);
      expect([developerBalance.body.withdrawableNowCents, ownerBalance.body.withdrawableNowCents]).toEqual([0, net]);
    });

    test("when a test withdrawal is asked, then it needs a step-up, takes no key's limit, its idempotency-key replays it, and the audit log holds it once", async () => {
      const { browser, api, person } = await merchant(server);
      await paidCharge(api);
      expectStatus(await release(browser), 200);

      const withoutStepUp = await browser.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
        ...mode("test"),
        body: withdrawal,
      });
      await steppedUp(server, browser, person.password);
      const ask = () =>
        browser.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
          ...mode("test"),
          headers: { "idempotency-key": "saque-1" },
          body: withdrawal,
        });
      const first = await ask();
      const again = await ask();
      const reused = await browser.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
        ...mode("test"),
        headers: { "idempotency-key": "saque-1" },
        body: { ...withdrawal, amountCents: 6_000 },
      });
      const listed = await browser.api.GET("/dashboard/v1/modes/{mode}/withdrawals", mode("test"));

      expectStatus(withoutStepUp, 403);
      expect(withoutStepUp.body.code).toBe("STEP_UP_REQUIRED");
      expectStatus(first, 201);
      expect(first.body).toMatchObject({ status: "PAID", amountCents: 5_000, livemode: false });
      expectStatus(again, 201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.body).toEqual(first.body);
      expectStatus(reused, 409);
      expect(reused.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expectStatus(listed, 200);
      expect(listed.body.data.map((w) => w.id)).toEqual([first.body.id]);
      expect((await server.store.read.withdrawals.getById(first.body.id))?.apiKeyId).toBeNull();
      const audit = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "withdrawal.requested" } },
      });
      expectStatus(audit, 200);
      expect(audit.body.data).toEqual([
        expect.objectContaining({
          actor: expect.objectContaining({ type: "user", email: person.email }),
          target: { type: "withdrawal", id: first.body.id },
          mode: "test",
          changes: {
            amountCents: { from: null, to: 5_000 },
            pixKey: { from: null, to: first.body.pixKey },
            pixKeyType: { from: null, to: "CPF" },
          },
        }),
      ]);
      expect(JSON.stringify(audit.body)).not.toContain(withdrawal.pixKey);
    });

    test("when a production withdrawal is asked before and after verification, then 403 ACCOUNT_NOT_ACTIVE, then paid out and the owner e-mailed once", async () => {
      const { browser, person, accountId } = await merchant(server);
      const secret = await steppedUp(server, browser, person.password);
      const ask = (asker: DashboardBrowser) =>
        asker.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
          ...mode("production"),
          headers: { "idempotency-key": "saque-producao" },
          body: withdrawal,
        });
      const unverified = await ask(browser);
      // The operator verifies the account; a production charge is paid and its release period passes.
      const verified = await operator(server).PATCH("/admin/v1/accounts/{id}", {
        ...byId(accountId),
        body: { verified: true },
      });
      expectStatus(verified, 200);
      const liveKey = await operator(server).POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(accountId),
        body: { name: "producao", mode: "production", permissions: ["charges:write"] },
      });
      expectStatus(liveKey, 201);
      const charge = await publicApi(server.baseUrl, { key: liveKey.body.secret }).POST("/api/v1/charges/pix", {
        body: chargeBody({ amountCents: 20_000 }),
      });
      expectStatus(charge, 201);
      expectStatus(await operator(server).POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.body.id)), 200);
      server.clock.advance(2 * 86_400);
      const later = dashboardBrowser(server.baseUrl);
      const logIn = await later.api.POST("/dashboard/v1/session", {
        body: { email: person.email, password: person.password, code: codeOf(server, secret) },
      });
      expectStatus(logIn, 201);

      const first = await ask(later);
      const replayed = await ask(later);
      const balance = await later.api.GET("/dashboard/v1/modes/{mode}/balance", mode("production"));

      expectStatus(unverified, 403);
      expect(unverified.body.code).toBe("ACCOUNT_NOT_ACTIVE");
      expectStatus(first, 201);
      expect(first.body).toMatchObject({ amountCents: 5_000, livemode: true });
      expectStatus(replayed, 201);
      expect(replayed.body.id).toBe(first.body.id);
      expectStatus(balance, 200);
      expect(balance.body.availableCents).toBe(charge.body.netAmountCents - 5_000);
      const mails = server.mail.filter((m) => m.to === person.email && m.subject.startsWith("Saque"));
      expect(mails).toHaveLength(1);
      expect(mails[0]?.text).toContain(`no painel por ${person.name} (${person.email})`);
      expect(mails[0]?.text).toContain(first.body.id);
    });

    test("when notes and tags are written on a customer, then the dashboard shows them and the public API never does", async () => {
      const { browser, api, accountId } = await merchant(server);
      const { id: charge } = await paidCharge(api);
      const viewer = await member(server, accountId, "viewer");
      const customerId = (await server.store.read.transactions.getById(charge))?.customer.id ?? "";

      const written = await browser.api.PATCH("/dashboard/v1/modes/{mode}/customers/{id}/notes", {
        ...inMode("test", customerId),
        body: { notes: "Prefere contato por e-mail.", tags: ["vip", "atacado", "vip"] },
      });
      const tagsOnly = await browser.api.PATCH("/dashboard/v1/modes/{mode}/customers/{id}/notes", {
        ...inMode("test", customerId),
        body: { tags: ["vip"] },
      });
      const byDocument = await viewer.api.GET("/dashboard/v1/modes/{mode}/customers", {
        params: { path: { mode: "test" }, query: { document: "529.982.247-25" } },
      });
      const viewerWrites = await viewer.api.PATCH("/dashboard/v1/modes/{mode}/customers/{id}/notes", {
        ...inMode("test", customerId),
        body: { notes: null },
      });
      const inProduction = await browser.api.GET(
        "/dashboard/v1/modes/{mode}/customers/{id}",
        inMode("production", customerId),
      );
      const publicCustomer = await api.GET("/api/v1/customers/{id}", byId(customerId));

      expectStatus(written, 200);
      expect(written.body).toMatchObject({
        id: customerId,
        notes: "Prefere contato por e-mail.",
        tags: ["vip", "atacado"],
      });
      expectStatus(tagsOnly, 200);
      expect(tagsOnly.body).toMatchObject({ notes: "Prefere contato por e-mail.", tags: ["vip"] });
      expectStatus(byDocument, 200);
      expect(byDocument.body.data).toEqual([tagsOnly.body]);
      expectStatus(viewerWrites, 403);
      expect(inProduction.status).toBe(404);
      expectStatus(publicCustomer, 200);
      expect(publicCustomer.body).not.toHaveProperty("notes");
      expect(publicCustomer.body).not.toHaveProperty("tags");
      expect({ ...publicCustomer.body, notes: tagsOnly.body.notes, tags: tagsOnly.body.tags }).toEqual(tagsOnly.body);
    });

    test("when a paid charge's event is delivered and it is refunded, then its timeline holds the event, the delivery's attempt and the refund in order", async () => {
      const { browser, api, accountId } = await merchant(server);
      const receiver = await startReceiver([200]);
      closers.push(receiver.close);
      const endpoint = await operator(server).POST("/admin/v1/accounts/{id}/webhook-endpoints", {
        ...byId(accountId),
        body: { url: receiver.url, mode: "test", events: ["transaction.paid", "refund.created", "refund.completed"] },
      });
      expectStatus(endpoint, 201);
      const { id: charge } = await paidCharge(api);
      const worker = new DeliveryWorker({
        store: server.store,
        clock: server.clock,
        logger: pino({ level: "silent" }),
        allowLoopbackForTest: true,
      });
      await worker.runOnce();
      server.clock.advance(60);
      expectStatus(await release(browser), 200);
      const refunded = await browser.api.POST("/dashboard/v1/modes/{mode}/transactions/{id}/refunds", {
        ...inMode("test", charge),
        body: { amountCents: 1_000, reason: "Produto devolvido" },
      });
      expectStatus(refunded, 201);

      const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions/{id}", inMode("test", charge));
      const balance = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("test"));

      expectStatus(answer, 200);
      expect(answer.body.transaction).toMatchObject({ id: charge, status: "PAID", refundedAmountCents: 1_000 });
      // Released: a further refund takes it all from the available balance.
      expectStatus(balance, 200);
      expect(answer.body.refundSources).toEqual({ chargePendingCents: 0, availableCents: balance.body.availableCents });
      const steps = answer.body.timeline.map(
        (e) => `${e.kind}:${e.event?.type ?? e.refund?.status ?? e.delivery?.status}`,
      );
      expect(steps).toEqual([
        "event:transaction.paid",
        "delivery:SUCCEEDED",
        "refund:COMPLETED",
        "event:refund.created",
        "event:refund.completed",
        "delivery:PENDING",
        "delivery:PENDING",
      ]);
      const delivered = answer.body.timeline[1]?.delivery;
      expect(delivered?.endpointId).toBe(endpoint.body.id);
      expect(delivered?.eventId).toBe(answer.body.timeline[0]?.event?.id);
      expect(delivered?.attempts).toEqual([expect.objectContaining({ status: 200, error: null })]);
      expect(answer.body.timeline[2]?.refund?.id).toBe(refunded.body.id);
      const audit = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "refund.created" } },
      });
      expectStatus(audit, 200);
      expect(audit.body.data.map((e) => [e.target.id, e.changes.amountCents])).toEqual([
        [refunded.body.id, { from: null, to: 1_000 }],
      ]);
    });

    test("when a charge paid today is refunded in the dashboard, then it comes from its pending money as in the public API, and a refund past that and the available balance is refused naming both in reais (record 0055)", async () => {
      const { browser, api } = await merchant(server);
      const { id, net } = await paidCharge(api);
      const refund = (body: { amountCents?: number }) =>
        browser.api.POST("/dashboard/v1/modes/{mode}/transactions/{id}/refunds", { ...inMode("test", id), body });

      const timeline = () => browser.api.GET("/dashboard/v1/modes/{mode}/transactions/{id}", inMode("test", id));
      const before = await timeline();
      const part = await refund({ amountCents: 4_000 });
      const after = await timeline();
      const whole = await refund({});
      const balance = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("test"));

      // What the app's confirmation says the refund takes from, before and after the first part.
      expectStatus(before, 200);
      expect(before.body.refundSources).toEqual({ chargePendingCents: net, availableCents: 0 });
      expectStatus(after, 200);
      expect(after.body.refundSources).toEqual({ chargePendingCents: net - 4_000, availableCents: 0 });

      expectStatus(part, 201);
      expect(part.body).toMatchObject({ amountCents: 4_000, status: "COMPLETED" });
      expectStatus(whole, 400);
      expect(whole.body).toMatchObject({
        code: "INSUFFICIENT_BALANCE",
        message: `Saldo insuficiente para a devolução: desta cobrança ainda a liberar R$ ${((net - 4_000) / 100)
          .toFixed(2)
          .replace(".", ",")}, disponível R$ 0,00.`,
      });
      expectStatus(balance, 200);
      expect(balance.body).toMatchObject({ availableCents: 0, pendingCents: net - 4_000 });
    });

    test("when the sandbox is played from the dashboard, then test charges expire, are disputed and resolved, listed as disputes, and production refuses it", async () => {
      const { browser, api } = await merchant(server);
      const { id: paid } = await paidCharge(api);
      const waiting = await api.POST("/api/v1/charges/pix", { body: chargeBody() });
      expectStatus(waiting, 201);
      const created = await api.POST("/api/v1/charges/pix", { body: chargeBody() });
      expectStatus(created, 201);

      const payOne = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay", {
        ...inMode("test", created.body.id),
        headers: { "idempotency-key": "pagar-1" },
      });
      const payAgain = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay", {
        ...inMode("test", created.body.id),
        headers: { "idempotency-key": "pagar-1" },
      });
      const expired = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/expire",
        inMode("test", waiting.body.id),
      );
      expectStatus(await release(browser), 200);
      const disputed = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/dispute", {
        ...inMode("test", paid),
        body: {},
      });
      expectStatus(disputed, 201);
      const disputeId = disputed.body.dispute?.id ?? "";
      const open = await browser.api.GET("/dashboard/v1/modes/{mode}/disputes", {
        params: { path: { mode: "test" }, query: { status: "OPEN" } },
      });
      const resolved = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/disputes/{id}/resolve", {
        ...inMode("test", disputeId),
        body: { outcome: "LOST" },
      });
      const stillOpen = await browser.api.GET("/dashboard/v1/modes/{mode}/disputes", {
        params: { path: { mode: "test" }, query: { status: "OPEN" } },
      });
      const all = await browser.api.GET("/dashboard/v1/modes/{mode}/disputes", mode("test"));
      const refusals = await Promise.all([
        browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/balance/release", mode("production")),
        browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay", inMode("production", paid)),
      ]);

      expectStatus(payOne, 200);
      expect(payOne.body.status).toBe("PAID");
      expectStatus(payAgain, 200);
      expect(payAgain.headers.get("idempotent-replayed")).toBe("true");
      expectStatus(expired, 200);
      expect(expired.body.status).toBe("EXPIRED");
      expectStatus(open, 200);
      expect(open.body.data.map((t) => [t.id, t.dispute?.status])).toEqual([[paid, "OPEN"]]);
      expectStatus(resolved, 200);
      expect(resolved.body.dispute?.status).toBe("LOST");
      expectStatus(stillOpen, 200);
      expect(stillOpen.body.data).toEqual([]);
      expectStatus(all, 200);
      expect(all.body.data.map((t) => [t.id, t.dispute?.status])).toEqual([[paid, "LOST"]]);
      for (const refused of refusals) {
        expectStatus(refused, 403);
        expect(refused.body.code).toBe("TEST_MODE_ONLY");
      }
    });

    test("when a payment link is created and deactivated in the dashboard, then it lists, and its charges are the transaction list's paymentLinkId filter", async () => {
      const { browser, api, accountId } = await merchant(server);
      await paidCharge(api);
      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/payment-links", {
        ...mode("test"),
        body: { amountCents: 4_990, description: "Curso de fotografia" },
      });
      expectStatus(created, 201);
      const account = await server.store.read.accounts.get(accountId);
      const link = await server.store.read.paymentLinks.get({ accountId, livemode: false }, created.body.id);
      if (!account || !link) throw new Error("no account or link");
      const body = chargeBody({ amountCents: 4_990, description: link.description, metadata: undefined }) as NewCharge;
      const linkCharge = await server.store.transaction((tx) =>
        insertCharge(
          server.deps,
          tx,
          { accountId, livemode: false },
          account,
          body,
          server.clock.now().toISOString(),
          link,
        ),
      );

      const charges = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
        params: { path: { mode: "test" }, query: { paymentLinkId: created.body.id } },
      });
      const deactivated = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/payment-links/{id}/deactivate",
        inMode("test", created.body.id),
      );
      const active = await browser.api.GET("/dashboard/v1/modes/{mode}/payment-links", {
        params: { path: { mode: "test" }, query: { active: "true" } },
      });
      const inactive = await browser.api.GET("/dashboard/v1/modes/{mode}/payment-links", {
        params: { path: { mode: "test" }, query: { active: "false" } },
      });

      expectStatus(charges, 200);
      expect(charges.body.data.map((t) => t.id)).toEqual([linkCharge.id]);
      expectStatus(deactivated, 200);
      expect(deactivated.body.active).toBe(false);
      expectStatus(active, 200);
      expect(active.body.data).toEqual([]);
      expectStatus(inactive, 200);
      expect(inactive.body.data.map((l) => l.id)).toEqual([created.body.id]);
    });

    test("when the transaction list is searched by id or payer document, or narrowed to a customer, then it finds exactly their charges, in the list and the CSV", async () => {
      const { browser, api } = await merchant(server);
      const other = { ...chargePayer, name: "Ana Souza", document: "11144477735" };
      const maria = [await paidCharge(api)];
      server.clock.advance(1);
      maria.push(await paidCharge(api, 2_000));
      server.clock.advance(1);
      const ana = await api.POST("/api/v1/charges/pix", { body: chargeBody({ customer: other }) });
      expectStatus(ana, 201);
      const list = (query: { search?: string; customerId?: string; status?: string; limit?: number }) =>
        browser.api.GET("/dashboard/v1/modes/{mode}/transactions", { params: { path: { mode: "test" }, query } });
      const ids = async (query: Parameters<typeof list>[0]) => {
        const page = await list(query);
        expectStatus(page, 200);
        return page.body.data.map((t) => t.id);
      };
      const newestMaria = [maria[1]?.id, maria[0]?.id];

      expect(await ids({ search: ana.body.id })).toEqual([ana.body.id]);
      expect(await ids({ search: ` ${maria[0]?.id} ` })).toEqual([maria[0]?.id]);
      expect(await ids({ search: "529.982.247-25" })).toEqual(newestMaria);
      expect(await ids({ search: "111.444.777-35", status: "PAID" })).toEqual([]);
      expect(await ids({ search: "111.444.777-35", status: "WAITING_PAYMENT" })).toEqual([ana.body.id]);
      expect(await ids({ search: "txn_NaoExiste" })).toEqual([]);
      expect(await ids({ search: "Maria" })).toEqual([]);
      // Nothing to refund from a charge not paid: its page offers no refund and names no source.
      const unpaid = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions/{id}", inMode("test", ana.body.id));
      expectStatus(unpaid, 200);
      expect(unpaid.body).not.toHaveProperty("refundSources");
      // A valid CPF nobody paid with, and a customer and a document that disagree: nothing.
      expect(await ids({ search: "39053344705" })).toEqual([]);
      expect(await ids({ search: "52998224725", customerId: ana.body.customer.id })).toEqual([]);
      expect(await ids({ search: "   " })).toHaveLength(3);
      expect(await ids({ customerId: ana.body.customer.id })).toEqual([ana.body.id]);
      expect(await ids({ customerId: "cus_NaoExiste" })).toEqual([]);

      // Pages of a customer's charges walk on with the cursor; a search matching nothing still
      // checks it.
      const first = await list({ search: "52998224725", limit: 1 });
      expectStatus(first, 200);
      expect(first.body).toMatchObject({ hasMore: true, data: [{ id: maria[1]?.id }] });
      const second = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
        params: { path: { mode: "test" }, query: { search: "52998224725", limit: 1, startingAfter: maria[1]?.id } },
      });
      expectStatus(second, 200);
      expect(second.body).toMatchObject({ hasMore: false, data: [{ id: maria[0]?.id }] });
      const badCursor = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
        params: { path: { mode: "test" }, query: { search: "Maria", startingAfter: "txn_NaoExiste" } },
      });
      expectStatus(badCursor, 400);

      const csvIds = async (search: string) => {
        const answer = await fetch(`${server.baseUrl}/dashboard/v1/modes/test/transactions.csv?search=${search}`, {
          headers: { cookie: `__Host-pix_session=${browser.cookie}` },
        });
        expect(answer.status).toBe(200);
        const [, ...rows] = (await answer.text()).trim().split("\r\n");
        return rows.map((row) => row.split(";")[0]);
      };
      expect(await csvIds("52998224725")).toEqual(newestMaria);
      expect(await csvIds("Maria")).toEqual([]);
    });
  });
}
