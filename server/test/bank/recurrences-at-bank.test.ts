import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../../../fake-bank/src/bank.js";
import { freePort } from "../../../scripts/pg-cluster.js";
import { byId, expectStatus, operatorApi, publicApi } from "../harness.js";
import { startAdmin } from "../support/admin-process.js";
import { connectionBodyOf } from "../support/fake-bank-credentials.js";
import { createTestDatabase, type TestDatabase } from "../support/pg.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";
import { eachStore } from "../support/stores.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";

// Issue 36 §2's acceptance as a test: Pix Automático at the bank. The built server with
// NODE_ENV=production, its bank listener and PIX_BANK_ACCOUNT, connected to the fake bank by the
// operator API, on both stores. A production recurrence of journey 3 is registered at the bank
// (locrec, the immediate cob, rec naming its txid; its QR the bank's composite code), approved by
// paying that QR in the fake bank, its next cycle charged (`PUT /cobr`), failed for want of balance
// (AM04), retried through the bank (`POST /cobr/{txid}/retentativa/{data}`) and paid, then
// cancelled by the payer at the bank: each step in GET /api/v1/events and at a webhook endpoint,
// every request the service sent the bank valid against the document. Then the callbacks a
// forger or a bank's retry sends: duplicated and forged `/rec` callbacks move nothing the bank's
// read does not confirm; and the merchant's cancellation reaches the bank (`PATCH /rec`).

const adminToken = "adm_bank_recurrences_0123456789abcdef";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(
  what: string,
  check: () => Promise<T> | T,
  { ms = 30_000, pollMs = 250 }: { ms?: number; pollMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(pollMs);
  }
}

/** Today in Brasília (the recurrences' calendar), `YYYY-MM-DD`. */
const brasiliaToday = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);

for (const store of eachStore("bank_recurrences")) {
  store.describe(`Pix Automático at the bank on the ${store.name} store`, { timeout: 180_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "pix-bank-recurrences-"));
    let bank: FakeBank;
    let server: ServerProcess;
    let database: TestDatabase | undefined;
    let listenerPort: number;
    let api: ReturnType<typeof publicApi>;
    let receiver: Receiver;
    const stops: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      const listenerCa = listenerCertificateAuthority();
      const listenerCert = listenerCa.issueServer(["localhost", "127.0.0.1"]);
      writeFileSync(join(dir, "listener.crt"), listenerCert.certPem);
      writeFileSync(join(dir, "listener.key"), listenerCert.keyPem);
      bank = await startFakeBank({ webhookCa: listenerCa.certPem });
      if (store.name === "PostgreSQL") database = await createTestDatabase("bank_recurrences");
      listenerPort = await freePort();
      server = await startServerProcess({
        name: `bank recurrences (${store.name})`,
        env: {
          NODE_ENV: "production",
          PUBLIC_BASE_URL: "https://pix.example.com.br",
          ADMIN_TOKEN: adminToken,
          PIX_BANK_WEBHOOK_PORT: String(listenerPort),
          PIX_BANK_WEBHOOK_CERT_FILE: join(dir, "listener.crt"),
          PIX_BANK_WEBHOOK_KEY_FILE: join(dir, "listener.key"),
          PIX_BANK_ACCOUNT: bank.recurrences.accountOf(bank.customer.clientId),
          PIX_BANK_RECONCILE_SECONDS: "10",
          ...(database ? { DATABASE_URL: database.url } : {}),
        },
        track: (stop) => stops.push(stop),
      });
      const operator = operatorApi(server.baseUrl, { token: adminToken });
      const connected = await operator.PUT("/admin/v1/bank-connection", {
        body: connectionBodyOf(bank, { webhookUrl: `https://localhost:${listenerPort}/banco` }),
      });
      expectStatus(connected, 200);
      // Both webhooks of Pix Automático registered at the bank with the connection. Waited for
      // before any other call: the bank's first requests compile its document's validator in this
      // process (seconds of CPU under load), long enough for the server to close an idle
      // keep-alive socket the next call would have reused (ECONNRESET).
      await eventually("the webhooks registered", () =>
        ["PUT /api/v2/webhookrec", "PUT /api/v2/webhookcobr"].every((route) =>
          bank.requests().some((r) => `${r.method} ${r.path}` === route && r.status === 200),
        ),
      );
      const created = await operator.POST("/admin/v1/accounts", {
        body: { name: "Academia Forma", ownerEmail: "dono@forma.example.com", releasePeriodDays: 0 },
      });
      expectStatus(created, 201);
      expectStatus(
        await operator.PATCH("/admin/v1/accounts/{id}", {
          params: { path: { id: created.body.id } },
          body: { verified: true },
        }),
        200,
      );
      const key = await operator.POST("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: created.body.id } },
        body: { name: "loja", mode: "production" },
      });
      expectStatus(key, 201);
      api = publicApi(server.baseUrl, { key: key.body.secret });
      // A local receiver of the account's production events (a production endpoint must be public
      // https: `admin listen` forwards them as deliveries).
      receiver = await startReceiver([204]);
      stops.push(() => receiver.close());
      const listening = await startAdmin(
        ["--json", "listen", "--forward-to", receiver.url, "--interval", "1000"],
        { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: key.body.secret, ADMIN_TOKEN: undefined },
        "Segredo de assinatura",
      );
      stops.push(async () => listening.kill());
    }, 180_000);

    afterAll(async () => {
      for (const stop of stops.splice(0)) await stop();
      await bank?.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const control = async <T>(path: string, body?: unknown, method = "POST"): Promise<T> => {
      const res = await fetch(`${bank.controlUrl}${path}`, {
        method: body === undefined ? "GET" : method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
      const text = await res.text();
      return (text ? JSON.parse(text) : null) as T;
    };
    const recurrence = async (id: string) => {
      const res = await api.GET("/api/v1/recurrences/{id}", byId(id));
      expectStatus(res, 200);
      return res.body;
    };
    const transaction = async (id: string) => {
      const res = await api.GET("/api/v1/transactions/{id}", byId(id));
      expectStatus(res, 200);
      return res.body;
    };
    /** The events of the key's account about `ids`, oldest first: their types. */
    const events = async (ids: string[]) => {
      const res = await api.GET("/api/v1/events", { params: { query: { limit: 100 } } });
      expectStatus(res, 200);
      return res.body.data
        .filter((e) => ids.includes((e.data.object as { id: string }).id))
        .reverse()
        .map((e) => e.type);
    };
    const delivered = (ids: string[]) =>
      receiver.received
        .map((r) => JSON.parse(r.body) as { type: string; data: { object: { id: string } } })
        .filter((e) => ids.includes(e.data.object.id))
        .map((e) => e.type);
    /** The operator's reconciliation, now (what the schedule runs every PIX_BANK_RECONCILE_SECONDS). */
    const reconcileNow = async () =>
      expectStatus(
        await operatorApi(server.baseUrl, { token: adminToken }).POST("/admin/v1/bank/reconciliations", { body: {} }),
        200,
      );
    /** Whether the service read a listing (`route` its start, query included), each read valid against the document. */
    const listed = (route: string) => {
      const reads = bank.requests().filter((r) => `${r.method} ${r.path}`.startsWith(route));
      return reads.length > 0 && reads.every((r) => r.status === 200 && r.requestValid && r.responseValid !== false);
    };
    const atBank = (contract: string) => bank.recurrences.list().recs.find((r) => r.vinculo.contrato === contract);

    test("when a journey 3 recurrence is paid, charged, refused for want of balance, retried and cancelled by its payer at the bank, then each step is the bank's and each event is sent once", async () => {
      const firstDate = dateAfter(brasiliaToday(), 5);
      const contract = "FORMA-J3-0001";
      const created = await api.POST("/api/v1/recurrences", {
        body: recurrenceBody({
          journey: "JOURNEY_3",
          contractReference: contract,
          firstDate,
          amountCents: 8990,
          retryPolicy: "RETRY_3_IN_7_DAYS",
          initialPayment: { amountCents: 8990, description: "Primeira mensalidade" },
        }),
      });
      expectStatus(created, 201);
      expect(created.body.status).toBe("CREATED");
      const id = created.body.id;
      const initialId = created.body.initialTransactionId as string;
      // The QR code is the bank's composite one: the cob's location and the recurrence's.
      const code = await eventually("the bank's composite QR", async () => (await recurrence(id)).pix.copyPaste);
      expect(code).toMatch(/localhost:\d+\/qr\/v2\/[0-9a-f]{32}/);
      expect(code).toMatch(/localhost:\d+\/qr\/v2\/rec\/[0-9a-f]{32}/);
      const rec = atBank(contract);
      expect(rec?.status).toBe("CRIADA");
      expect(rec?.ativacao?.tipoJornada).toBe("JORNADA_3");
      expect((await transaction(initialId)).pix.copyPaste).toBe(code);

      // The payer pays it in the bank: the cob is paid, the bank approves the recurrence.
      await control("/pay", { code });
      await eventually("approved", async () => (await recurrence(id)).status === "APPROVED");
      await eventually("the immediate charge paid", async () => (await transaction(initialId)).status === "PAID");

      // The next cycle: a cobr at the bank.
      const charged = await api.POST("/api/v1/recurrences/{id}/charges", {
        ...byId(id),
        body: { dueDate: firstDate },
      });
      expectStatus(charged, 201);
      const cycleId = charged.body.id;
      const cobr = await eventually("the cobr at the bank", () =>
        bank.recurrences.list().cobrs.find((c) => c.idRec === rec?.idRec),
      );
      expect(cobr.status).toBe("ATIVA");
      expect(cobr.valor.original).toBe("89.90");
      const firstAttempt = cobr.tentativas?.[0]?.dataLiquidacao as string;

      // Its date comes and the payer has no balance: AM04, and a retry the service asks the bank for.
      await control("/payer-funds", { insufficient: true }, "PUT");
      expect(await control<{ debited: number }>("/cobr/run", { date: firstAttempt })).toEqual({ debited: 1 });
      const retrying = await eventually("the retry at the bank", async () => {
        const held = bank.recurrences.list().cobrs.find((c) => c.txid === cobr.txid);
        return held?.tentativas?.length === 2 ? held : null;
      });
      const failed = await transaction(cycleId);
      expect(failed.status).toBe("WAITING_PAYMENT");
      expect((failed.attempts ?? []).map((a) => [a.type, a.status, a.reasonCode])).toEqual([
        ["SCHEDULED", "FAILED", "AM04"],
        ["RETRY", "SCHEDULED", null],
      ]);
      const retryDate = retrying.tentativas?.[1]?.dataLiquidacao as string;
      expect(retryDate).toBe(failed.attempts?.[1]?.settlementDate);

      // The retry's date comes with the balance back: paid, with the bank's end-to-end id.
      await control("/payer-funds", { insufficient: false }, "PUT");
      expect(await control<{ debited: number }>("/cobr/run", { date: retryDate })).toEqual({ debited: 1 });
      const paid = await eventually("the cycle paid", async () => {
        const now = await transaction(cycleId);
        return now.status === "PAID" ? now : null;
      });
      const paidAtBank = bank.recurrences.list().cobrs.find((c) => c.txid === cobr.txid);
      expect(paid.attempts?.[1]?.endToEndId).toBe(paidAtBank?.tentativas?.[1]?.endToEndId);

      // The payer cancels it in their bank.
      await control(`/recurrences/${rec?.idRec}/cancel`, {});
      const cancelled = await eventually("cancelled", async () => {
        const now = await recurrence(id);
        return now.status === "CANCELLED" ? now : null;
      });
      expect(cancelled.cancellation).toMatchObject({ requestedBy: "PAYER", code: "SLDB" });

      // Every step once, in the events and at the webhook endpoint.
      const journey = [
        "recurrence.created",
        "transaction.paid",
        "recurrence.approved",
        "recurring_charge.created",
        "recurring_charge.retrying",
        "transaction.paid",
        "recurrence.cancelled",
      ];
      const ids = [id, initialId, cycleId];
      await eventually("every event", async () => (await events(ids)).length >= journey.length);
      expect([...(await events(ids))].sort()).toEqual([...journey].sort());
      await eventually("every event at the endpoint", () => delivered(ids).length >= journey.length, { ms: 20_000 });
      expect([...delivered(ids)].sort()).toEqual([...journey].sort());

      // Every request to the bank valid against the document, and every answer and callback too.
      const requests = bank.requests();
      expect(requests.filter((r) => !r.requestValid || r.responseValid === false)).toEqual([]);
      const routes = requests.map((r) => `${r.method} ${r.path.replace(/^\/api\/v2/, "")}`);
      for (const expected of [
        /^PUT \/cob\//,
        /^POST \/locrec$/,
        /^POST \/rec$/,
        /^GET \/rec\/RR\w+\?txid=/,
        /^PUT \/cobr\//,
        /^GET \/cobr\//,
        /^POST \/cobr\/\w+\/retentativa\/\d{4}-\d{2}-\d{2}$/,
      ])
        expect(
          routes.some((r) => expected.test(r)),
          `${String(expected)} in ${routes.join(", ")}`,
        ).toBe(true);
      expect(bank.callbacks().every((c) => c.bodyValid)).toBe(true);
    });

    test("when the bank's recurrence callbacks are forged or duplicated, then only what the bank confirms moves the recurrence, once", async () => {
      const contract = "FORMA-J2-0002";
      const created = await api.POST("/api/v1/recurrences", {
        body: recurrenceBody({ contractReference: contract, firstDate: dateAfter(brasiliaToday(), 20) }),
      });
      expectStatus(created, 201);
      const id = created.body.id;
      await eventually("the bank's QR", async () => (await recurrence(id)).pix.copyPaste);
      const idRec = atBank(contract)?.idRec as string;
      expect(idRec).toMatch(/^RN\w{27}$/);

      // The payer approves; the callback is forged (it says "cancelled by the payer"): the service
      // reads the bank, which says approved.
      bank.faultCallbacks({ kind: "forge", count: 1 });
      await control(`/recurrences/${idRec}/approve`, {});
      await eventually("approved", async () => (await recurrence(id)).status === "APPROVED");
      await bank.settled();
      expect(bank.callbacks().some((c) => c.fault === "forge" && c.endToEndIds.includes(idRec))).toBe(true);

      // A forger with the bank's certificate names a recurrence nobody has: nothing is read or moved.
      const forged = await postCallback(bank, listenerPort, "/banco/rec", {
        recs: [
          {
            idRec: "RN9999999920260101Forged00001",
            status: "CANCELADA",
            atualizacao: [{ status: "CANCELADA", data: new Date().toISOString() }],
          },
        ],
      });
      expect(forged).toBe(200);
      // A body outside the document is refused.
      expect(await postCallback(bank, listenerPort, "/banco/rec", { recs: [{ idRec }] })).toBe(400);

      // The payer cancels; the callback comes twice: cancelled once.
      bank.faultCallbacks({ kind: "duplicate", count: 1 });
      await control(`/recurrences/${idRec}/cancel`, {});
      await eventually("cancelled", async () => (await recurrence(id)).status === "CANCELLED");
      await bank.settled();
      await sleep(500);
      expect(await events([id])).toEqual(["recurrence.created", "recurrence.approved", "recurrence.cancelled"]);
      expect(bank.requests().some((r) => r.path.includes("Forged"))).toBe(false);
    });

    test("when the bank's callback of an approval is lost, then the next read of the recurrence approves it, once", async () => {
      const contract = "FORMA-J2-0004";
      const created = await api.POST("/api/v1/recurrences", {
        body: recurrenceBody({ contractReference: contract, firstDate: dateAfter(brasiliaToday(), 20) }),
      });
      expectStatus(created, 201);
      const id = created.body.id;
      await eventually("the bank's QR", async () => (await recurrence(id)).pix.copyPaste);
      const idRec = atBank(contract)?.idRec as string;
      bank.faultCallbacks({ kind: "drop", count: 1 });
      await control(`/recurrences/${idRec}/approve`, {});
      await bank.settled();
      expect(bank.callbacks().some((c) => c.fault === "drop" && c.endToEndIds.includes(idRec))).toBe(true);
      expect((await recurrence(id)).status).toBe("CREATED");
      // The operator's reconciliation, now: the bank's listing of recurrences shows it approved.
      await reconcileNow();
      expect((await recurrence(id)).status).toBe("APPROVED");
      expect(await events([id])).toEqual(["recurrence.created", "recurrence.approved"]);
      expect(listed("GET /api/v2/rec?")).toBe(true);
    });

    test("when the bank's callback of a cycle charge's debit is lost, then the next read of the cobr pays it, once", async () => {
      const contract = "FORMA-J2-0005";
      const firstDate = dateAfter(brasiliaToday(), 4);
      const created = await api.POST("/api/v1/recurrences", {
        body: recurrenceBody({ contractReference: contract, firstDate, amountCents: 3990 }),
      });
      expectStatus(created, 201);
      const id = created.body.id;
      await eventually("the bank's QR", async () => (await recurrence(id)).pix.copyPaste);
      const idRec = atBank(contract)?.idRec as string;
      await control(`/recurrences/${idRec}/approve`, {});
      await eventually("approved", async () => (await recurrence(id)).status === "APPROVED");
      const charged = await api.POST("/api/v1/recurrences/{id}/charges", { ...byId(id), body: { dueDate: firstDate } });
      expectStatus(charged, 201);
      const cobr = await eventually("the cobr at the bank", () =>
        bank.recurrences.list().cobrs.find((c) => c.idRec === idRec),
      );
      bank.faultCallbacks({ kind: "drop", count: 1 });
      await control("/payer-funds", { insufficient: false }, "PUT");
      await control("/cobr/run", { date: cobr.tentativas?.[0]?.dataLiquidacao });
      await bank.settled();
      expect(bank.callbacks().some((c) => c.fault === "drop" && c.endToEndIds.includes(cobr.txid))).toBe(true);
      // The operator's reconciliation, now: the bank's listing of cycle charges shows it paid.
      await reconcileNow();
      const paid = await transaction(charged.body.id);
      expect(paid.status).toBe("PAID");
      expect(paid.attempts?.[0]?.status).toBe("PAID");
      expect(paid.attempts?.[0]?.endToEndId).toBe(
        bank.recurrences.list().cobrs.find((c) => c.txid === cobr.txid)?.tentativas?.[0]?.endToEndId,
      );
      expect(listed("GET /api/v2/cobr?")).toBe(true);
      expect(await events([charged.body.id])).toEqual(["recurring_charge.created", "transaction.paid"]);
    });

    test("when the merchant cancels a recurrence registered at the bank, then the bank's is cancelled too", async () => {
      const contract = "FORMA-J2-0003";
      const created = await api.POST("/api/v1/recurrences", {
        body: recurrenceBody({ contractReference: contract, firstDate: dateAfter(brasiliaToday(), 20) }),
      });
      expectStatus(created, 201);
      await eventually("the bank's QR", async () => (await recurrence(created.body.id)).pix.copyPaste);
      const cancelled = await api.POST("/api/v1/recurrences/{id}/cancel", byId(created.body.id));
      expectStatus(cancelled, 200);
      expect(cancelled.body.status).toBe("CANCELLED");
      const held = await eventually("cancelled at the bank", () =>
        atBank(contract)?.status === "CANCELADA" ? atBank(contract) : null,
      );
      expect(held.encerramento).toMatchObject({ cancelamento: { solicitante: "USUARIO_RECEBEDOR", codigo: "SLCR" } });
      expect(bank.requests().some((r) => r.method === "PATCH" && r.path.includes(held.idRec))).toBe(true);
    });
  });
}

/** POSTs a callback to the service's listener as the bank would (its client certificate). */
function postCallback(bank: FakeBank, port: number, path: string, body: unknown): Promise<number | null> {
  const certificate = bank.callbackCertificate();
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    const req = request(`https://localhost:${port}${path}`, {
      method: "POST",
      cert: certificate.certPem,
      key: certificate.keyPem,
      rejectUnauthorized: false,
      agent: false,
      headers: { "content-type": "application/json", "content-length": payload.length },
    });
    req.on("error", () => resolve(null));
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? null));
    });
    req.end(payload);
  });
}
