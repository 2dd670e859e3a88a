import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createCertificateAuthority, type CertificateAuthority } from "../../../fake-bank/src/certs.js";
import { startFakeBank, type Dialect, type FakeBank } from "../../../fake-bank/src/bank.js";
import { malformedAnswer } from "../../../fake-bank/src/api.js";
import { pixBankFrom, type BankClient } from "../../src/bank/client.js";
import { startWebhookListener, type WebhookListener } from "../../src/bank/listener.js";
import { bankWiring } from "../../src/bank/wiring.js";
import type { BankCredentials, BankHealthPatch } from "../../src/domain/bank/index.js";
import { freePort } from "../../../scripts/pg-cluster.js";
import { closeBankWithClient, credentialsOf, startBankWithClient } from "../support/fake-bank-credentials.js";
import { BankRefusedError, BankUnavailableError, type BankChargeRequest } from "../../src/domain/ports/pix-bank.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";
import { postToListener, type ListenerPostOptions } from "../support/listener-post.js";

// The adapter against the fake bank (fake-bank/): real TLS, mutual TLS, OAuth2, its requests and
// answers checked against the vendored document. Certificates are made here, at test time.

/** The bound of the tests that time it (a bank that does not answer). */
const timeoutMs = 1_500;
/**
 * The bound of every other call: the fake bank runs in this test's process and compiles a route's
 * validator at its first call (hundreds of ms of CPU, seconds on a loaded machine), which a
 * 1.5 s bound once took for a bank that did not answer.
 */
const callTimeoutMs = 10_000;

let serial = 0;
/** A txid of 26–35 letters and digits, new each time. */
const txid = () => `adaptertest${Date.now().toString(36)}${(serial++).toString().padStart(12, "0")}`;

const chargeRequest = (overrides: Partial<BankChargeRequest> = {}): BankChargeRequest => ({
  txid: txid(),
  amountCents: 12345,
  expiresInSeconds: 3600,
  payer: { name: "Maria da Silva", documentType: "CPF", document: "52998224725" },
  description: "Pedido 42",
  ...overrides,
});

/** The window of `GET /pix` around now. */
const aroundNow = () => ({
  from: new Date(Date.now() - 60_000).toISOString(),
  to: new Date(Date.now() + 60_000).toISOString(),
});

/** Every request the adapter sent was valid against the document, says the bank's log. */
function expectEveryRequestValid(bank: FakeBank): void {
  const invalid = bank.requests().filter((r) => !r.requestValid);
  expect(invalid, JSON.stringify(invalid, null, 2)).toEqual([]);
}

describe.each<Dialect>(["standard", "efi", "inter"])("the PixBank adapter, dialect %s", (dialect) => {
  let bank: FakeBank;
  let client: BankClient;

  beforeAll(async () => {
    ({ bank, client } = await startBankWithClient(
      { dialect, tokenTtlSeconds: 3600, refunds: { mode: "manual", delayMs: 0 } },
      { timeoutMs: callTimeoutMs },
    ));
  });
  afterAll(() => closeBankWithClient({ bank, client }));
  afterEach(() => bank.clearFaults());

  test("when a charge is registered, then the bank holds it with its dynamic code, and a repeat answers the same", async () => {
    const request = chargeRequest({ amountCents: 1 });
    const charge = await client.registerCharge(request);
    expect(charge).toMatchObject({ txid: request.txid, status: "ATIVA", amountCents: 1 });
    expect(charge.copyPaste).toMatch(/^000201/);
    const again = await client.registerCharge(request);
    expect(again.copyPaste).toBe(charge.copyPaste);
    expect(await client.readCharge(request.txid)).toMatchObject({
      txid: request.txid,
      status: "ATIVA",
      amountCents: 1,
    });
    expectEveryRequestValid(bank);
  });

  test("when a charge is paid, then its Pix reads back, is listed, and the charge is CONCLUIDA", async () => {
    const request = chargeRequest({
      amountCents: 999_999_999_999,
      payer: { name: "Loja Ltda", documentType: "CNPJ", document: "11222333000181" },
    });
    const charge = await client.registerCharge(request);
    const paid = bank.pay(charge.copyPaste);
    const pix = await client.readReceived(paid.endToEndId);
    expect(pix).toMatchObject({
      endToEndId: paid.endToEndId,
      txid: request.txid,
      key: client.pixKey,
      amountCents: 999_999_999_999,
      refunds: [],
    });
    const listed = await client.listReceived(aroundNow(), 0);
    expect(listed.items.map((p) => p.endToEndId)).toContain(paid.endToEndId);
    expect(listed.pages).toBeGreaterThanOrEqual(1);
    expect((await client.readCharge(request.txid))?.status).toBe("CONCLUIDA");
    expectEveryRequestValid(bank);
  });

  test("when a refund is requested, then the bank holds it in our id and the read and the Pix say how it ended", async () => {
    const charge = await client.registerCharge(chargeRequest({ amountCents: 5000 }));
    const paid = bank.pay(charge.copyPaste);
    const refundId = `rfd${Date.now().toString(36)}`;
    const refund = await client.requestRefund({
      endToEndId: paid.endToEndId,
      refundId,
      amountCents: 1234,
      description: "Devolução parcial",
    });
    expect(refund).toMatchObject({ refundId, amountCents: 1234, nature: "ORIGINAL", status: "EM_PROCESSAMENTO" });
    bank.completeRefund(paid.endToEndId, refundId);
    expect(await client.readRefund(paid.endToEndId, refundId)).toMatchObject({
      refundId,
      status: "DEVOLVIDO",
      amountCents: 1234,
    });
    const pix = await client.readReceived(paid.endToEndId);
    expect(pix?.refunds).toEqual([
      expect.objectContaining({ refundId, status: "DEVOLVIDO", returnId: refund.returnId }),
    ]);
    expectEveryRequestValid(bank);
  });

  test("when a charge is removed, then it reads REMOVIDA_PELO_USUARIO_RECEBEDOR, and removing it again is no error", async () => {
    const request = chargeRequest();
    await client.registerCharge(request);
    await client.removeCharge(request.txid);
    expect((await client.readCharge(request.txid))?.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    await expect(client.removeCharge(request.txid)).resolves.toBeUndefined();
  });

  test("when the bank does not know a charge, a Pix or a refund, then the read answers null", async () => {
    expect(await client.readCharge(txid())).toBeNull();
    expect(await client.readReceived("E12345678202601011200abcdefghijk")).toBeNull();
    expect(await client.readRefund("E12345678202601011200abcdefghijk", "naoexiste")).toBeNull();
  });

  test("when the webhook is registered, then the bank holds our URL", async () => {
    await client.registerWebhook("https://127.0.0.1:1/adapter-test");
    expectEveryRequestValid(bank);
  });

  test("when the bank refuses a charge (4xx), then it is BankRefusedError with the bank's detail", async () => {
    const expired = await client.registerCharge(chargeRequest()).then(() => null);
    expect(expired).toBeNull();
    // A charge already paid cannot be removed: the bank says why.
    const charge = await client.registerCharge(chargeRequest());
    bank.pay(charge.copyPaste);
    const error = await client.removeCharge(charge.txid).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BankRefusedError);
    expect((error as BankRefusedError).status).toBeGreaterThanOrEqual(400);
    expect((error as BankRefusedError).status).toBeLessThan(500);
    expect((error as BankRefusedError).detail).not.toBe("");
  });

  test("when the bank expires every token, then 20 concurrent calls renew it once and all succeed", async () => {
    const request = chargeRequest();
    await client.registerCharge(request);
    const tokenPath = new URL(bank.tokenUrl).pathname;
    const tokensBefore = bank.requests().filter((r) => r.path === tokenPath).length;
    bank.expireTokens();
    const reads = await Promise.all(Array.from({ length: 20 }, () => client.readCharge(request.txid)));
    expect(reads.every((r) => r?.txid === request.txid)).toBe(true);
    expect(bank.requests().filter((r) => r.path === tokenPath).length - tokensBefore).toBe(1);
  });

  test("when the bank answers 5xx, then the call is BankUnavailableError", async () => {
    bank.faultCalls({ kind: "status", status: 503, count: 1, route: "^GET /cob/" });
    await expect(client.readCharge(txid())).rejects.toBeInstanceOf(BankUnavailableError);
  });

  test("when the bank does not answer, then the call is BankUnavailableError within the bounded wait", async () => {
    const bounded = pixBankFrom(credentialsOf(bank), { timeoutMs });
    try {
      expect(await bounded.readCharge(txid())).toBeNull(); // the token, and the route's validator warm
      bank.faultCalls({ kind: "timeout", count: 1, route: "^PUT /cob/" });
      const started = performance.now();
      await expect(bounded.registerCharge(chargeRequest())).rejects.toBeInstanceOf(BankUnavailableError);
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(timeoutMs - 50);
      expect(waited).toBeLessThan(timeoutMs + 1_000);
    } finally {
      await bounded.close();
    }
  });

  test("when every call above is done, then each request the adapter sent was valid against the document", () => {
    expect(bank.requests().length).toBeGreaterThan(20);
    expectEveryRequestValid(bank);
  });
});

describe("the PixBank adapter's connection", () => {
  let bank: FakeBank;

  beforeAll(async () => {
    bank = await startFakeBank({ tokenTtlSeconds: 3600 });
  });
  afterAll(async () => {
    await bank?.close();
  });

  test("when the certificate is the bank's PKCS#12, then calls go through", async () => {
    const client = pixBankFrom(
      credentialsOf(bank, {
        certificate: {
          format: "pkcs12",
          pfxBase64: bank.customer.p12.toString("base64"),
          passphrase: bank.customer.p12Passphrase,
        },
      }),
      { timeoutMs: callTimeoutMs },
    );
    try {
      expect(await client.readCharge(txid())).toBeNull();
    } finally {
      await client.close();
    }
  });

  test("when nothing listens at the bank's address, then the call is BankUnavailableError at once", async () => {
    const client = pixBankFrom(
      credentialsOf(bank, { baseUrl: "https://127.0.0.1:1/api/v2", tokenUrl: "https://127.0.0.1:1/oauth/token" }),
      {
        timeoutMs,
      },
    );
    try {
      const started = performance.now();
      await expect(client.readCharge(txid())).rejects.toBeInstanceOf(BankUnavailableError);
      expect(performance.now() - started).toBeLessThan(timeoutMs);
    } finally {
      await client.close();
    }
  });

  test("when the bank's server certificate is not from the bank's CA, then the call is BankUnavailableError", async () => {
    const other = createCertificateAuthority("Another CA");
    const client = pixBankFrom(credentialsOf(bank, { bankCaPem: other.certPem }), { timeoutMs: callTimeoutMs });
    try {
      await expect(client.readCharge(txid())).rejects.toBeInstanceOf(BankUnavailableError);
    } finally {
      await client.close();
    }
  });

  test("when the one socket allowed is held by a bank that does not answer, then the calls queued behind it end within their own bound", async () => {
    const client = pixBankFrom(credentialsOf(bank), { timeoutMs, connections: 1 });
    try {
      expect(await client.readCharge(txid())).toBeNull(); // the token, and the socket opened
      bank.faultCalls({ kind: "timeout", count: 5, route: "^GET /cob/" });
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => client.readCharge(txid())));
      const waited = performance.now() - started;
      expect(outcomes.map((o) => (o.status === "rejected" ? (o.reason as Error).name : "fulfilled"))).toEqual(
        Array(5).fill("BankUnavailableError"),
      );
      expect(waited).toBeLessThan(timeoutMs + 1_000);
    } finally {
      bank.clearFaults();
      await client.close();
    }
  });

  test("when the token endpoint answers JSON cut short, then the call is BankUnavailableError whose message and causes quote none of the answer", async () => {
    const client = pixBankFrom(credentialsOf(bank), { timeoutMs: callTimeoutMs });
    try {
      bank.faultCalls({ kind: "malformed", count: 1, route: "^POST /oauth/" });
      const error = await client.readCharge(txid()).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(BankUnavailableError);
      expect((error as Error).message).toBe("resposta do banco fora do padrão: resposta do token (não é JSON)");
      // Everything an error log or the operator's view could print: the message and each cause's.
      const said: string[] = [];
      for (let e: unknown = error; e instanceof Error; e = e.cause) said.push(e.message, e.stack ?? "");
      expect(said.join("\n")).not.toMatch(/eyJhbGci|segredo|access_token/);
      expect(malformedAnswer).toContain("segredo");
    } finally {
      await client.close();
    }
  });

  test("when the client secret is wrong, then the call is BankUnavailableError (no token)", async () => {
    const client = pixBankFrom(credentialsOf(bank, { clientSecret: "errado" }), { timeoutMs: callTimeoutMs });
    try {
      await expect(client.readCharge(txid())).rejects.toBeInstanceOf(BankUnavailableError);
    } finally {
      await client.close();
    }
  });
});

/** The status a POST to the listener is answered, with `identity` (a client certificate) or none. */
const post = async (port: number, path: string, body: string, options: ListenerPostOptions) =>
  (await postToListener(port, path, body, options)).status;

describe.each<Dialect>(["standard", "inter"])("the webhook listener, dialect %s", (dialect) => {
  let listenerCa: CertificateAuthority;
  let bank: FakeBank;
  let client: BankClient;
  let listener: WebhookListener;
  const received: string[][] = [];

  beforeAll(async () => {
    listenerCa = listenerCertificateAuthority();
    const serverCertificate = listenerCa.issueServer(["127.0.0.1"]);
    bank = await startFakeBank({ dialect, webhookCa: listenerCa.certPem });
    client = pixBankFrom(credentialsOf(bank), { timeoutMs: callTimeoutMs });
    listener = await startWebhookListener({
      port: 0,
      serverCertificate: { cert: serverCertificate.certPem, key: serverCertificate.keyPem },
      bank: { ca: bank.caPem, dialect, path: "/bank-hook" },
      onReceived: (ids) => {
        received.push(ids);
      },
    });
    await client.registerWebhook(`https://127.0.0.1:${listener.port}/bank-hook`);
  });
  afterAll(async () => {
    await listener?.close();
    await client?.close();
    await bank?.close();
  });

  test("when the bank calls back on a payment, then the listener answers 200 and hands on its end-to-end id", async () => {
    const charge = await client.registerCharge(chargeRequest());
    const paid = bank.pay(charge.copyPaste);
    await bank.settled();
    expect(received.flat()).toContain(paid.endToEndId);
    expect(
      bank
        .callbacks()
        .filter((c) => c.endToEndIds.includes(paid.endToEndId))
        .map((c) => c.status),
    ).toContain(200);
  });

  test("when a refund ends, then its notice hands on its Pix's end-to-end id", async () => {
    const charge = await client.registerCharge(chargeRequest());
    const paid = bank.pay(charge.copyPaste);
    await bank.settled();
    received.length = 0;
    const refundId = `rfd${Date.now().toString(36)}`;
    await client.requestRefund({ endToEndId: paid.endToEndId, refundId, amountCents: 100 });
    bank.completeRefund(paid.endToEndId, refundId);
    await bank.settled();
    expect(received.flat()).toContain(paid.endToEndId);
  });

  test("when a client comes without a certificate, then the handshake refuses it", async () => {
    await expect(post(listener.port, "/bank-hook/pix", "{}", { ca: listenerCa.certPem })).rejects.toThrow();
  });

  test("when a client's certificate is not from the bank's CA, then the handshake refuses it", async () => {
    const stranger = createCertificateAuthority("Stranger CA").issueClient("intruso");
    await expect(
      post(listener.port, "/bank-hook/pix", "{}", {
        ca: listenerCa.certPem,
        identity: stranger,
      }),
    ).rejects.toThrow();
  });

  test("when the bank's certificate brings a body outside the standard, then it is answered 400 and nothing is handed on", async () => {
    received.length = 0;
    const identity = bank.callbackCertificate();
    const wrongShape = dialect === "inter" ? { pix: [] } : [];
    expect(
      await post(listener.port, "/bank-hook/pix", JSON.stringify(wrongShape), { ca: listenerCa.certPem, identity }),
    ).toBe(400);
    const badPix = [{ endToEndId: "E1", valor: "dez reais", horario: "ontem" }];
    const body = dialect === "inter" ? badPix : { pix: badPix };
    expect(
      await post(listener.port, "/bank-hook/pix", JSON.stringify(body), { ca: listenerCa.certPem, identity }),
    ).toBe(400);
    expect(await post(listener.port, "/bank-hook/pix", "não é json", { ca: listenerCa.certPem, identity })).toBe(400);
    expect(await post(listener.port, "/outro/pix", "{}", { ca: listenerCa.certPem, identity })).toBe(404);
    expect(received).toEqual([]);
  });

  test("when the bank's certificate brings a well-formed callback, then it is answered 200 and its ids handed on once each", async () => {
    received.length = 0;
    const identity = bank.callbackCertificate();
    const pix = {
      endToEndId: "E12345678202601011200abcdefghijk",
      txid: txid(),
      valor: "10.00",
      horario: "2026-01-01T12:00:00.000Z",
    };
    const items = [pix, pix];
    const body = dialect === "inter" ? items : { pix: items };
    expect(
      await post(listener.port, "/bank-hook/pix", JSON.stringify(body), { ca: listenerCa.certPem, identity }),
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received).toEqual([[pix.endToEndId]]);
  });
});

/**
 * The wiring as main.ts makes it (`load` the connection), its listener on `port` with a server
 * certificate of `listenerCa`: the wiring, the end-to-end ids `onReceived` heard and the health
 * patches it recorded.
 */
function wiringOn(
  port: number,
  listenerCa: CertificateAuthority,
  load: () => Promise<BankCredentials>,
  more: { registerRetryMs?: number } = {},
) {
  const serverCertificate = listenerCa.issueServer(["127.0.0.1"]);
  const received: string[] = [];
  const health: BankHealthPatch[] = [];
  const wiring = bankWiring({
    load,
    recordHealth: (patch) => {
      health.push(patch);
      return Promise.resolve();
    },
    onReceived: (ids) => {
      received.push(...ids);
      return Promise.resolve();
    },
    logger: { info: () => undefined, warn: () => undefined },
    listener: {
      port,
      host: "127.0.0.1",
      certificate: { cert: serverCertificate.certPem, key: serverCertificate.keyPem },
    },
    timeoutMs: callTimeoutMs,
    recheckMs: 0,
    ...more,
  });
  return { wiring, received, health };
}

describe("the bank wiring main.ts starts", () => {
  test("when it starts and when the connection changes, then the webhook is registered and the bank's callbacks reach onReceived", async () => {
    const listenerCa = listenerCertificateAuthority();
    const bank = await startFakeBank({ webhookCa: listenerCa.certPem });
    const port = await freePort();
    let credentials = credentialsOf(bank, { webhookUrl: `https://127.0.0.1:${port}/banco` });
    const { wiring, received, health } = wiringOn(port, listenerCa, () => Promise.resolve(credentials));
    try {
      await wiring.start();
      const webhookPuts = () => bank.requests().filter((r) => r.method === "PUT" && r.path.includes("/webhook/"));
      expect(webhookPuts().map((r) => r.status)).toEqual([200]);
      expect(health).toEqual([expect.objectContaining({ webhookRegisteredAt: expect.any(String) })]);
      expect(wiring.listenerPort()).toBe(port);

      const client = await wiring.access.current();
      const charge = await client!.registerCharge(chargeRequest());
      const paid = bank.pay(charge.copyPaste);
      await bank.settled();
      expect(received).toContain(paid.endToEndId);

      credentials = { ...credentials, version: 2, webhookUrl: `https://127.0.0.1:${port}/banco2` };
      const rebuilt = await wiring.access.refresh();
      expect(rebuilt).not.toBe(client);
      await wiring.start();
      expect(webhookPuts().map((r) => r.status)).toEqual([200, 200]);
      const again = bank.pay((await rebuilt!.registerCharge(chargeRequest())).copyPaste);
      await bank.settled();
      expect(received).toContain(again.endToEndId);
      expectEveryRequestValid(bank);
    } finally {
      await wiring.close();
      await bank.close();
    }
  });

  test("when the listener's port is held by another process at start, then the health says so, the listener is bound once the port is free, and the bank's callbacks reach onReceived", async () => {
    const listenerCa = listenerCertificateAuthority();
    const bank = await startFakeBank({ webhookCa: listenerCa.certPem });
    const { createServer } = await import("node:net");
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
    const { port } = squatter.address() as { port: number };
    const { wiring, received, health } = wiringOn(
      port,
      listenerCa,
      () => Promise.resolve(credentialsOf(bank, { webhookUrl: `https://127.0.0.1:${port}/banco` })),
      { registerRetryMs: 100 },
    );
    try {
      await wiring.start();
      expect(wiring.listenerPort()).toBeNull();
      expect(health).toEqual([
        { lastError: { at: expect.any(String), message: expect.stringMatching(/^ouvinte do webhook: .*EADDRINUSE/) } },
      ]);
      await new Promise((resolve) => squatter.close(resolve));
      await expect.poll(() => wiring.listenerPort(), { timeout: 5_000 }).toBe(port);
      await expect
        .poll(() => health.some((h) => typeof h.webhookRegisteredAt === "string"), { timeout: 5_000 })
        .toBe(true);
      const client = await wiring.access.current();
      const paid = bank.pay((await client!.registerCharge(chargeRequest())).copyPaste);
      await bank.settled();
      expect(received).toContain(paid.endToEndId);
    } finally {
      squatter.close();
      await wiring.close();
      await bank.close();
    }
  });
});
