import { expect, test } from "vitest";
import { chargeBody, expectStatus, publicApi, rawCall, type TestServer } from "../harness.js";
import { dashboardMerchant } from "../support/merchant.js";
import { eachStore, serverOn } from "../support/stores.js";

// The request logs (issue 37 §2) through the real HTTP stack on both stores: the public API's
// requests made with a key, listed in the dashboard (Desenvolvedores → Registros) with their
// bodies masked; filters; the scope (mode, account); the days dropped whole; the buffer's overflow.

/** The buffer of this file's server: small, so a burst without a read overflows it. */
const buffer = { capacity: 12, batchSize: 200 };

const inMode = (mode: "test" | "production", query: Record<string, string | number> = {}) => ({
  params: { path: { mode }, query },
});

type Merchant = Awaited<ReturnType<typeof dashboardMerchant>>;

async function listOf(merchant: Merchant, mode: "test" | "production", query: Record<string, string | number> = {}) {
  const answer = await merchant.browser.api.GET("/dashboard/v1/modes/{mode}/request-logs", inMode(mode, query));
  expectStatus(answer, 200);
  return answer.body.data;
}

/** A test key of the merchant's account, made by the operator API with `permissions`; the key as created (201). */
async function testKey(
  merchant: Merchant,
  name: string,
  permissions: ("charges:write" | "balance:read" | "transactions:read")[],
) {
  const key = await merchant.operator.POST("/admin/v1/accounts/{id}/api-keys", {
    params: { path: { id: merchant.accountId } },
    body: { name, mode: "test", permissions },
  });
  expectStatus(key, 201);
  return key.body;
}

/** A charge the API refuses for its amount (400), with a payer's CPF and e-mail in its body. */
const refusedCharge = (secret: string) => ({
  ...chargeBody(),
  amountCents: 100,
  customer: {
    name: "Maria da Silva",
    email: "maria.silva@example.com",
    documentType: "CPF",
    document: "52998224725",
  },
  metadata: { apiToken: secret },
});

for (const store of eachStore("request_logs")) {
  store.describe(`request logs on the ${store.name} store`, () => {
    const server: TestServer = serverOn(store, { requestLogBuffer: buffer });

    test("when a charge is refused (400), then Registros lists it with its error body and its page masks the payer's CPF, e-mail and a secret", async () => {
      const merchant = await dashboardMerchant(server);
      const key = await testKey(merchant, "Loja online", ["charges:write"]);
      const refused = await rawCall<{ code: string; message: string }>(server.baseUrl, "POST", "/api/v1/charges/pix", {
        key: key.secret,
        body: refusedCharge("tok_segredo_123"),
        headers: { "x-request-id": "req-refused-1" },
      });
      expect(refused.status).toBe(400);

      const [entry, ...others] = await listOf(merchant, "test");
      expect(others).toEqual([]);
      expect(entry).toMatchObject({
        method: "POST",
        path: "/api/v1/charges/pix",
        route: "/api/v1/charges/pix",
        status: 400,
        requestId: "req-refused-1",
        key: { id: key.id, name: "Loja online", prefix: key.secret.slice(0, 13) },
      });
      expect(entry?.durationMs).toBeGreaterThanOrEqual(0);
      expect(JSON.parse(entry?.errorBody ?? "null")).toMatchObject({ ok: false, code: refused.body.code });

      const page = await merchant.browser.api.GET("/dashboard/v1/modes/{mode}/request-logs/{id}", {
        params: { path: { mode: "test", id: entry?.id ?? "" } },
      });
      expectStatus(page, 200);
      const sent = JSON.parse(page.body.requestBody ?? "null") as ReturnType<typeof refusedCharge>;
      expect(sent.amountCents).toBe(100);
      expect(sent.customer.document).toBe("***982247**");
      expect(sent.customer.email).toBe("ma***@example.com");
      expect(sent.metadata.apiToken).toBe("[secreto]");
      const everything = JSON.stringify(page.body);
      for (const secret of ["52998224725", "529.982.247-25", "maria.silva@", "tok_segredo_123", key.secret]) {
        expect(everything).not.toContain(secret);
      }
      expect(page.body.responseBody).toBe(entry?.errorBody);
      expect(page.body.requestBodyTruncated).toBe(false);
    });

    test("when requests are filtered by status, path and key, then each filter keeps only its own", async () => {
      const merchant = await dashboardMerchant(server);
      const other = await testKey(merchant, "outra", ["balance:read", "transactions:read"]);
      const created = await merchant.api.POST("/api/v1/charges/pix", { body: chargeBody() });
      expectStatus(created, 201);
      expectStatus(
        await merchant.api.GET("/api/v1/transactions/{id}", { params: { path: { id: "txn_nenhuma" } } }),
        404,
      );
      const otherApi = publicApi(server.baseUrl, { key: other.secret });
      expectStatus(await otherApi.GET("/api/v1/balance"), 200);
      expectStatus(await otherApi.GET("/api/v1/transactions", { params: { query: { limit: 5 } } }), 200);

      const all = await listOf(merchant, "test");
      expect(all.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
        "GET /api/v1/transactions 200",
        "GET /api/v1/balance 200",
        "GET /api/v1/transactions/txn_nenhuma 404",
        "POST /api/v1/charges/pix 201",
      ]);
      expect(all[0]?.errorBody).toBeNull();
      expect((await listOf(merchant, "test", { status: "4xx" })).map((e) => e.status)).toEqual([404]);
      expect((await listOf(merchant, "test", { status: "201" })).map((e) => e.path)).toEqual(["/api/v1/charges/pix"]);
      expect((await listOf(merchant, "test", { status: "2xx" })).length).toBe(3);
      expect((await listOf(merchant, "test", { status: "5xx" })).length).toBe(0);
      expect((await listOf(merchant, "test", { path: "transactions" })).length).toBe(2);
      expect((await listOf(merchant, "test", { path: "txn_nenhuma" })).map((e) => e.status)).toEqual([404]);
      expect((await listOf(merchant, "test", { path: "%" })).length).toBe(0);
      const byOther = await listOf(merchant, "test", { keyId: other.id });
      expect(byOther.map((e) => e.path)).toEqual(["/api/v1/transactions", "/api/v1/balance"]);
      expect(byOther.every((e) => e.key.name === "outra")).toBe(true);

      const first = await listOf(merchant, "test", { limit: 2 });
      const next = await listOf(merchant, "test", { limit: 2, startingAfter: first[1]?.id ?? "" });
      expect([...first, ...next].map((e) => e.id)).toEqual(all.map((e) => e.id));
    });

    test("when another account and the production mode make requests, then each mode of each account sees only its own", async () => {
      const merchant = await dashboardMerchant(server, { production: true });
      const stranger = await dashboardMerchant(server);
      expectStatus(await merchant.api.GET("/api/v1/balance"), 200);
      expectStatus(await merchant.live!.GET("/api/v1/balance"), 200);
      expectStatus(await merchant.live!.GET("/api/v1/withdrawals"), 200);
      expectStatus(await stranger.api.GET("/api/v1/balance"), 200);

      expect((await listOf(merchant, "test")).map((e) => e.path)).toEqual(["/api/v1/balance"]);
      expect((await listOf(merchant, "production")).map((e) => e.path)).toEqual([
        "/api/v1/withdrawals",
        "/api/v1/balance",
      ]);
      const strangers = await listOf(stranger, "test");
      expect(strangers).toHaveLength(1);
      const mine = (await listOf(merchant, "test"))[0];
      const peek = await stranger.browser.api.GET("/dashboard/v1/modes/{mode}/request-logs/{id}", {
        params: { path: { mode: "test", id: mine?.id ?? "" } },
      });
      expectStatus(peek, 404);
      const otherMode = await merchant.browser.api.GET("/dashboard/v1/modes/{mode}/request-logs/{id}", {
        params: { path: { mode: "production", id: mine?.id ?? "" } },
      });
      expectStatus(otherMode, 404);
    });

    test("when a burst overflows the buffer before anything is written, then every request is answered and only what fitted is listed", async () => {
      const merchant = await dashboardMerchant(server);
      const answers = await Promise.all(
        Array.from({ length: buffer.capacity + 8 }, () => merchant.api.GET("/api/v1/balance")),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      const listed = await listOf(merchant, "test", { limit: 100 });
      expect(listed).toHaveLength(buffer.capacity);
    });

    test("when a key's name holds a tab, a newline and a backslash and a charge's text a quote and a backslash, then Registros shows each as it was", async () => {
      const merchant = await dashboardMerchant(server);
      const key = await testKey(merchant, "Loja\tonline\\PDV\r\n\\N 2", ["charges:write"]);
      const description = 'Camiseta "P" \\ tamanho\tM\nazul ✓ 😀';
      const created = await publicApi(server.baseUrl, { key: key.secret }).POST("/api/v1/charges/pix", {
        body: chargeBody({ description }),
      });
      expectStatus(created, 201);

      const [entry, ...others] = await listOf(merchant, "test");
      expect(others).toEqual([]);
      expect(entry?.key.name).toBe(key.name);
      expect(entry?.key.name).toContain("\t");
      const page = await merchant.browser.api.GET("/dashboard/v1/modes/{mode}/request-logs/{id}", {
        params: { path: { mode: "test", id: entry?.id ?? "" } },
      });
      expectStatus(page, 200);
      expect((JSON.parse(page.body.requestBody ?? "null") as { description: string }).description).toBe(description);
      expect(page.body.responseBody).toContain(JSON.stringify(description));
    });

    // Last: it moves the server's clock eight days on.
    test("when eight days pass, then the day's requests are dropped whole and the next days stay", async () => {
      const merchant = await dashboardMerchant(server);
      expectStatus(await merchant.api.GET("/api/v1/balance"), 200);
      const [old] = await listOf(merchant, "test");
      expect(old).toBeDefined();
      const oldDay = old!.createdAt.slice(0, 10);

      server.clock.advance(3 * 86_400);
      expectStatus(await merchant.api.GET("/api/v1/withdrawals"), 200);
      await server.domain.requestLogs.flush();
      server.clock.advance(5 * 86_400);
      const dropped = await server.domain.requestLogs.maintainDays();
      expect(dropped).toContain(oldDay);
      // Nothing of that day is left to drop: on PostgreSQL its partition is gone.
      expect(await server.domain.requestLogs.maintainDays()).toEqual([]);

      await merchant.logIn();
      expect((await listOf(merchant, "test")).map((e) => e.path)).toEqual(["/api/v1/withdrawals"]);
      const gone = await merchant.browser.api.GET("/dashboard/v1/modes/{mode}/request-logs/{id}", {
        params: { path: { mode: "test", id: old!.id } },
      });
      expectStatus(gone, 404);
    });
  });
}
