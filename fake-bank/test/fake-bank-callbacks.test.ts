import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type Dialect, type FakeBank } from "../src/bank.js";
import { createCertificateAuthority } from "../src/certs.js";
import { call, tokenFor } from "./client.js";

// The bank's callbacks reach a webhook listener over mutual TLS (the bank's own client
// certificate, the listener's CA trusted by the bank), in the dialect's shape, with each fault.

interface Received {
  path: string;
  body: any;
  peer: string;
  at: number;
  /** Which TLS connection it came on (numbered as the listener accepted them). */
  connection: number;
}

/** A webhook listener like the service's: HTTPS, requires a client certificate from the bank's CA. */
async function startListener(serverCert: { certPem: string; keyPem: string }, bankCa: string) {
  const received: Received[] = [];
  let answer = 200;
  const connections = new WeakMap<object, number>();
  let accepted = 0;
  const server: Server = createServer(
    { cert: serverCert.certPem, key: serverCert.keyPem, ca: bankCa, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const peer = (req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? "";
        received.push({
          path: req.url ?? "",
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
          peer,
          at: Date.now(),
          connection: connections.get(req.socket) ?? -1,
        });
        res.statusCode = answer;
        res.end();
      });
    },
  );
  server.on("secureConnection", (socket) => connections.set(socket, ++accepted));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    received,
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    answerWith: (status: number) => {
      answer = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const listenerCa = createCertificateAuthority("Listener CA");
const listenerCert = listenerCa.issueServer(["localhost", "127.0.0.1"]);
let counter = 0;
const newTxid = () => `CallbackTest${Date.now()}${String(counter++).padStart(4, "0")}`.slice(0, 35);
const KEY = "callbacks@example.com";

describe.each<Dialect>(["standard", "efi", "inter"])("fake bank callbacks, dialect %s", (dialect) => {
  let bank: FakeBank;
  let listener: Awaited<ReturnType<typeof startListener>>;
  let token: string;
  const api = (path: string, init: Partial<Parameters<typeof call>[1]> = {}) =>
    call(`${bank.baseUrl}${path}`, { ca: bank.caPem, identity: bank.customer, token, ...init });
  /** The Pix of each callback, in the order they arrived. */
  const pixOf = (r: Received): any[] => (dialect === "inter" ? r.body : r.body.pix);
  const payNewCob = async (original = "10.00") => {
    const created = await api(`/cob/${newTxid()}`, {
      method: "PUT",
      json: { calendario: { expiracao: 3600 }, valor: { original }, chave: KEY },
    });
    return bank.pay(created.body.pixCopiaECola);
  };

  beforeAll(async () => {
    bank = await startFakeBank({
      dialect,
      customer: { keys: [KEY] },
      webhookCa: listenerCa.certPem,
      refunds: { mode: "manual", delayMs: 0 },
      callbackRetries: 2,
    });
    listener = await startListener(listenerCert, bank.caPem);
    token = await tokenFor(bank.tokenUrl, bank.caPem, bank.customer);
    const registered = await api(`/webhook/${KEY}`, { method: "PUT", json: { webhookUrl: listener.url } });
    expect(registered.status).toBe(200);
  });
  afterEach(async () => {
    bank.clearFaults();
    listener.answerWith(200);
    await bank.settled();
    listener.received.length = 0;
  });
  afterAll(async () => {
    await bank?.close();
    await listener?.close();
  });

  test("when a code is paid, then the callback reaches {webhookUrl}/pix over mutual TLS with the Pix", async () => {
    const paid = await payNewCob("12.00");
    await bank.settled();
    expect(listener.received).toHaveLength(1);
    const [callback] = listener.received;
    expect(callback?.path).toBe("/hook/pix");
    expect(callback?.peer).toBe("fake-bank-callbacks");
    expect(dialect === "inter" ? Array.isArray(callback?.body) : Array.isArray(callback?.body.pix)).toBe(true);
    expect(pixOf(callback!)).toEqual([expect.objectContaining({ endToEndId: paid.endToEndId, valor: "12.00" })]);
    expect(bank.callbacks().at(-1)).toMatchObject({ status: 200, attempt: 1, endToEndIds: [paid.endToEndId] });
  });

  test("when callbacks follow one another, then they share the connection the bank kept; with a new connection per callback, each has its own", async () => {
    const paidInTurn = async () => {
      for (let i = 0; i < 3; i++) {
        await payNewCob();
        await bank.settled();
      }
      return new Set(listener.received.splice(0).map((r) => r.connection));
    };
    // Switched through the control API, as a test in another language would.
    const connections = (value: string) =>
      fetch(`${bank.controlUrl}/callback-connections`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ connections: value }),
      });
    const kept = await paidInTurn();
    expect(kept.size).toBe(1);
    expect(kept.has(-1)).toBe(false);
    const refused = await connections("nenhuma");
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("kept ou new");
    expect((await connections("new")).status).toBe(204);
    try {
      const fresh = await paidInTurn();
      expect(fresh.size).toBe(3);
      expect([...fresh].some((c) => kept.has(c) || c === -1)).toBe(false);
    } finally {
      bank.setCallbackConnections("kept");
    }
    expect(
      bank
        .callbacks()
        .slice(-6)
        .map((c) => c.status),
    ).toEqual([200, 200, 200, 200, 200, 200]);
  });

  test("when transfers sent with the key end, then (Efí) each outcome reaches the key's webhook, valid by our document of Efí's payouts; Inter's are not played", async () => {
    const book = bank.payouts;
    expect(book === null).toBe(dialect === "standard");
    if (book === null) return;
    book.setPolicy({ mode: "pending" });
    const send = (n: number) =>
      book.accept({
        clientId: bank.customer.clientId,
        id: `trfNotice${Date.now()}${n}`,
        amount: 1234,
        payerKey: KEY,
        key: "recebedor@example.com",
      });
    const [paid, failed] = [send(1), send(2)];
    book.settle(paid.id, "pay");
    book.settle(failed.id, "fail", "Conta do recebedor encerrada");
    await bank.settled();
    const notices = listener.received.flatMap(pixOf).filter((p) => p.gnExtras?.idEnvio !== undefined);
    if (dialect === "inter") {
      expect(notices).toEqual([]);
      return;
    }
    expect(listener.received.map((r) => r.path)).toEqual(["/hook/pix", "/hook/pix"]);
    expect(notices).toEqual([
      expect.objectContaining({
        endToEndId: paid.endToEndId,
        tipo: "SOLICITACAO",
        status: "REALIZADO",
        valor: "12.34",
        chave: KEY,
        gnExtras: { idEnvio: paid.id },
      }),
      expect.objectContaining({
        status: "NAO_REALIZADO",
        horario: null,
        gnExtras: { idEnvio: failed.id, erro: expect.objectContaining({ motivo: "Conta do recebedor encerrada" }) },
      }),
    ]);
    expect(
      bank
        .callbacks()
        .slice(-2)
        .map((c) => [c.status, c.bodyValid, c.endToEndIds]),
    ).toEqual([
      [200, true, [paid.endToEndId]],
      [200, true, [failed.endToEndId]],
    ]);
  });

  test("when a Pix without txid arrives, then no callback is sent (the standard notifies charges only)", async () => {
    bank.sendPix({ key: KEY, amountCents: 500 });
    await bank.settled();
    expect(listener.received).toHaveLength(0);
  });

  test("when a devolução settles, then a callback carries the Pix with it", async () => {
    const paid = await payNewCob();
    await bank.settled();
    await api(`/pix/${paid.endToEndId}/devolucao/D1`, { method: "PUT", json: { valor: "2.00" } });
    bank.completeRefund(paid.endToEndId, "D1");
    await bank.settled();
    const last = pixOf(listener.received.at(-1)!)[0];
    expect(last.devolucoes).toEqual([expect.objectContaining({ id: "D1", status: "DEVOLVIDO" })]);
  });

  test("when the next callback is dropped, then none arrives and the log says so", async () => {
    bank.faultCallbacks({ kind: "drop", count: 1 });
    const paid = await payNewCob();
    await bank.settled();
    expect(listener.received).toHaveLength(0);
    expect(bank.callbacks().at(-1)).toMatchObject({ fault: "drop", status: null, endToEndIds: [paid.endToEndId] });
    await payNewCob();
    await bank.settled();
    expect(listener.received).toHaveLength(1);
  });

  test("when the next callback is duplicated, then it arrives twice", async () => {
    bank.faultCallbacks({ kind: "duplicate", count: 1 });
    const paid = await payNewCob();
    await bank.settled();
    expect(listener.received.map((r) => pixOf(r)[0].endToEndId)).toEqual([paid.endToEndId, paid.endToEndId]);
  });

  test("when the next callback is delayed, then it arrives after the delay", async () => {
    bank.faultCallbacks({ kind: "delay", count: 1, delayMs: 400 });
    const before = Date.now();
    await payNewCob();
    expect(listener.received).toHaveLength(0);
    await bank.settled();
    expect(listener.received).toHaveLength(1);
    expect(listener.received[0]!.at - before).toBeGreaterThanOrEqual(390);
  });

  test("when the next two callbacks are reordered, then they arrive last first", async () => {
    bank.faultCallbacks({ kind: "reorder", count: 2 });
    const first = await payNewCob();
    await bank.settled();
    expect(listener.received).toHaveLength(0);
    const second = await payNewCob();
    await bank.settled();
    expect(listener.received.map((r) => pixOf(r)[0].endToEndId)).toEqual([second.endToEndId, first.endToEndId]);
  });

  test("when the next callback is forged, then it names a Pix the bank never settled, with another amount", async () => {
    bank.faultCallbacks({ kind: "forge", count: 1 });
    const paid = await payNewCob("10.00");
    await bank.settled();
    const forged = pixOf(listener.received[0]!)[0];
    expect(forged.endToEndId).not.toBe(paid.endToEndId);
    expect(forged.valor).toBe("10.01");
    expect((await api(`/pix/${forged.endToEndId}`)).status).toBe(404);
    expect((await api(`/pix/${paid.endToEndId}`)).status).toBe(200);
  });

  test("when the listener fails, then the bank retries, and stops after its retries", async () => {
    listener.answerWith(500);
    const paid = await payNewCob();
    await bank.settled();
    expect(listener.received).toHaveLength(3);
    const attempts = bank.callbacks().filter((c) => c.endToEndIds.includes(paid.endToEndId));
    expect(attempts.map((c) => [c.attempt, c.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
    ]);
  });

  test("when the listener's certificate is from a CA the bank does not trust, then nothing is delivered", async () => {
    const stranger = createCertificateAuthority("Untrusted").issueServer(["127.0.0.1"]);
    const untrusted = await startListener(stranger, bank.caPem);
    try {
      await api(`/webhook/${KEY}`, { method: "PUT", json: { webhookUrl: untrusted.url } });
      await payNewCob();
      await bank.settled();
      expect(untrusted.received).toHaveLength(0);
      expect(bank.callbacks().at(-1)?.error).toBeDefined();
    } finally {
      await api(`/webhook/${KEY}`, { method: "PUT", json: { webhookUrl: listener.url } });
      await untrusted.close();
    }
  });

  test("when the suite is done, then every callback the bank sent was valid against the document", () => {
    expect(bank.callbacks().length).toBeGreaterThan(10);
    expect(bank.callbacks().filter((c) => !c.bodyValid)).toEqual([]);
    expect(bank.requests().filter((r) => r.responseValid === false || !r.requestValid)).toEqual([]);
  });
});
