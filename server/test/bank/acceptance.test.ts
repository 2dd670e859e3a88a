import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../../../fake-bank/src/bank.js";
import { freePort } from "../../../scripts/pg-cluster.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi } from "../harness.js";
import { startAdmin } from "../support/admin-process.js";
import { createTestDatabase, type TestDatabase } from "../support/pg.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";
import { eachStore } from "../support/stores.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";

// Issue 35's acceptance as a test: the built server started as `npm start` starts it, with
// NODE_ENV=production and its bank settings (the webhook listener with mutual TLS on its own port),
// against the fake bank (fake-bank/), on both stores. The operator connects the bank and verifies
// an account through the operator API; a production key charges; a payer pays the code through
// the fake bank's control API (as its page does); `transaction.paid` reaches a local receiver
// (`admin listen`, since a production endpoint must be public https) and the balance moves; the
// next callback is dropped and the reconciler credits it; part of the charge is refunded and the
// devolução is at the bank; every request the service sent the bank was valid against the document.

const adminToken = "adm_bank_acceptance_0123456789abcdef";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `pollMs` until it answers something truthy, or fails after `ms`. Checks that
 * call the service poll once a second: its rate limits are on, as in production (120 reads a
 * minute per address, `admin listen` polling too).
 */
async function eventually<T>(
  what: string,
  check: () => Promise<T>,
  { ms = 20_000, pollMs = 1_000 }: { ms?: number; pollMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(pollMs);
  }
}

for (const store of eachStore("bank_acceptance")) {
  store.describe(`the acceptance of issue 35 on the ${store.name} store`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "pix-bank-acceptance-"));
    let bank: FakeBank;
    let server: ServerProcess;
    let database: TestDatabase | undefined;
    let listenerPort: number;
    const stops: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      // The listener's own server certificate (made now, by a throwaway CA the bank trusts).
      const listenerCa = listenerCertificateAuthority();
      const listenerCert = listenerCa.issueServer(["localhost", "127.0.0.1"]);
      writeFileSync(join(dir, "listener.crt"), listenerCert.certPem);
      writeFileSync(join(dir, "listener.key"), listenerCert.keyPem);
      bank = await startFakeBank({ webhookCa: listenerCa.certPem, refunds: { mode: "complete", delayMs: 0 } });
      if (store.name === "PostgreSQL") database = await createTestDatabase("bank_acceptance");
      listenerPort = await freePort();
      server = await startServerProcess({
        name: `bank acceptance (${store.name})`,
        env: {
          NODE_ENV: "production",
          PUBLIC_BASE_URL: "https://pix.example.com.br",
          ADMIN_TOKEN: adminToken,
          PIX_BANK_WEBHOOK_PORT: String(listenerPort),
          PIX_BANK_WEBHOOK_CERT_FILE: join(dir, "listener.crt"),
          PIX_BANK_WEBHOOK_KEY_FILE: join(dir, "listener.key"),
          // The shortest the configuration takes: the journey waits for one run.
          PIX_BANK_RECONCILE_SECONDS: "10",
          PIX_BANK_RECONCILE_WINDOW_SECONDS: "600",
          ...(database ? { DATABASE_URL: database.url } : {}),
        },
        track: (stop) => stops.push(stop),
      });
    }, 120_000);

    afterAll(async () => {
      for (const stop of stops.splice(0)) await stop();
      await bank?.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const control = async <T>(path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${bank.controlUrl}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
      const text = await res.text();
      return (text ? JSON.parse(text) : null) as T;
    };

    test("when the operator connects the fake bank, then a production charge is paid, reconciled and refunded through it", async () => {
      const operator = operatorApi(server.baseUrl, { token: adminToken });

      // The operator connects the bank with what it issued (certificate made at test time).
      const connected = await operator.PUT("/admin/v1/bank-connection", {
        body: {
          baseUrl: bank.baseUrl,
          tokenUrl: bank.tokenUrl,
          clientId: bank.customer.clientId,
          clientSecret: bank.customer.clientSecret,
          certificate: {
            format: "pkcs12",
            pkcs12Base64: bank.customer.p12.toString("base64"),
            passphrase: bank.customer.p12Passphrase,
          },
          bankCaPem: bank.caPem,
          pixKey: bank.customer.keys[0] as string,
          dialect: "standard",
          webhookUrl: `https://localhost:${listenerPort}/banco`,
        },
      });
      expectStatus(connected, 200);

      // A merchant's account, verified by the operator, and a production key.
      const created = await operator.POST("/admin/v1/accounts", {
        body: { name: "Loja do Aceite", ownerEmail: "dono@aceite.example.com", releasePeriodDays: 0 },
      });
      expectStatus(created, 201);
      const accountId = created.body.id;
      const verified = await operator.PATCH("/admin/v1/accounts/{id}", {
        params: { path: { id: accountId } },
        body: { verified: true },
      });
      expectStatus(verified, 200);
      const key = await operator.POST("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
        body: { name: "loja", mode: "production" },
      });
      expectStatus(key, 201);
      const liveKey = key.body.secret;
      const api = publicApi(server.baseUrl, { key: liveKey });

      // A local receiver of the account's production events.
      const receiver: Receiver = await startReceiver([204]);
      stops.push(() => receiver.close());
      const listening = await startAdmin(
        ["--json", "listen", "--forward-to", receiver.url, "--interval", "1000"],
        { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: liveKey, ADMIN_TOKEN: undefined },
        "Segredo de assinatura",
      );
      stops.push(async () => listening.kill());
      const paidEvents = () =>
        receiver.received
          .map((r) => JSON.parse(r.body) as { type: string; data: { object: { id: string } } })
          .filter((e) => e.type === "transaction.paid")
          .map((e) => e.data.object.id);
      const balance = async () => {
        const res = await api.GET("/api/v1/balance");
        expectStatus(res, 200);
        return res.body;
      };
      const charge = async (amountCents: number) => {
        const res = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
        expectStatus(res, 201);
        expect(res.body.status).toBe("WAITING_PAYMENT");
        // The bank's dynamic BR Code: its payload location, not a static code of our key.
        expect(res.body.pix.copyPaste).toContain("/qr/v2/");
        return res.body;
      };
      const status = async (id: string) => {
        const res = await api.GET("/api/v1/transactions/{id}", byId(id));
        expectStatus(res, 200);
        return res.body.status;
      };
      const before = await balance();

      // Paid in the bank: the callback reaches the listener, the event the receiver.
      // At once after the connection: the charge is registered at the bank.
      const first = await charge(12_990);
      // The service has registered its webhook at the bank.
      await eventually("the webhook registered", async () => {
        const read = await operator.GET("/admin/v1/bank-connection");
        expectStatus(read, 200);
        return read.body.health.webhookRegisteredAt;
      });
      const firstPix = await control<{ endToEndId: string }>("/pay", { code: first.pix.copyPaste });
      await eventually("transaction.paid at the receiver", async () => paidEvents().includes(first.id), {
        pollMs: 100,
      });
      expect(await status(first.id)).toBe("PAID");
      const afterFirst = await balance();
      expect(afterFirst).not.toEqual(before);

      // The next callback is dropped: the reconciler credits it.
      await control("/faults/callbacks", { kind: "drop", count: 1 });
      const second = await charge(4_500);
      await control("/pay", { code: second.pix.copyPaste });
      await bank.settled();
      expect(bank.callbacks().filter((c) => c.fault === "drop")).toHaveLength(1);
      expect(await status(second.id)).toBe("WAITING_PAYMENT");
      await eventually("the reconciler's credit", async () => (await status(second.id)) === "PAID", {
        ms: 30_000,
      });
      await eventually("its transaction.paid at the receiver", async () => paidEvents().includes(second.id), {
        pollMs: 100,
      });
      const read = await operator.GET("/admin/v1/bank-connection");
      expectStatus(read, 200);
      expect(read.body.health.lastReconciliationAt).toBeTruthy();
      expect(await balance()).not.toEqual(afterFirst);

      // Part of the first refunded: a devolução of its Pix at the bank.
      const refund = await api.POST("/api/v1/transactions/{id}/refunds", {
        ...byId(first.id),
        body: { amountCents: 2_000 },
      });
      expectStatus(refund, 201);
      const devolucao = await eventually("the devolução at the bank", async () =>
        bank.refunds().find((r) => r.endToEndId === firstPix.endToEndId),
      );
      expect(devolucao.valor).toBe("20.00");
      await eventually("the refund completed", async () => {
        const res = await api.GET("/api/v1/refunds/{id}", byId(refund.body.id));
        expectStatus(res, 200);
        return res.body.status === "COMPLETED";
      });

      // Every request the service sent the bank was valid against the document, and so was every answer.
      const requests = bank.requests();
      expect(requests.filter((r) => !r.requestValid || r.responseValid === false)).toEqual([]);
      const routes = requests.map((r) => `${r.method} ${r.path.replace(/^\/api\/v2/, "")}`);
      for (const expected of [
        /^PUT \/webhook\//,
        /^PUT \/cob\//,
        /^GET \/pix\/E/,
        /^GET \/pix\?/,
        /^PUT \/pix\/E.+\/devolucao\//,
      ])
        expect(
          routes.some((r) => expected.test(r)),
          `${String(expected)} in ${routes.join(", ")}`,
        ).toBe(true);
      expect(bank.callbacks().every((c) => c.bodyValid)).toBe(true);
    });
  });
}
