import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import { startWebhookListener, type WebhookListener } from "../../src/bank/listener.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { byId, chargeBody, expectStatus, publicApi } from "../harness.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";

// Issue 35 §6's callback faults in the Efí and Inter dialects (Inter's callback body is a bare
// array; both read back each Pix by the standard's GET /pix/{e2eid}), and MED under faults: a
// duplicated, forged or lost callback (then one reconciliation), and a MED devolução whose notice
// arrives twice and out of order. Each scenario uses its own account and ends in the invariant:
// nothing credited twice, and the account's balance equals what the bank reports for its charges.
// The fake bank's callback faults take "the next N callbacks", so a dialect's scenarios run one
// after another on its bank; the dialects and stores are separate servers and banks.

type Dialect = "efi" | "inter";
const cents = (valor: string) => Math.round(Number(valor) * 100);

function dialectSuite(store: StoreUnderTest, dialect: Dialect) {
  let bank: FakeBank;
  let client: BankClient | null = null;
  let listener: WebhookListener;
  const access: BankAccess = { current: () => Promise.resolve(client), waitMs: 3_000 };
  const server = serverOn(store, { bank: access, clock: new ManualClock(new Date()) });

  beforeAll(async () => {
    const listenerCa = listenerCertificateAuthority();
    const serverCertificate = listenerCa.issueServer(["127.0.0.1"]);
    ({ bank, client } = await startBankWithClient(
      { dialect, webhookCa: listenerCa.certPem, tokenTtlSeconds: 3600 },
      { timeoutMs: 5_000 },
    ));
    listener = await startWebhookListener({
      port: 0,
      host: "127.0.0.1",
      serverCertificate: { cert: serverCertificate.certPem, key: serverCertificate.keyPem },
      bank: { ca: bank.caPem, dialect, path: "/banco" },
      onReceived: async (ids) => {
        await server.domain.bankReceipts.confirmReceived(ids);
      },
    });
    await client.registerWebhook(`https://127.0.0.1:${listener.port}/banco`);
  });
  afterAll(async () => {
    await listener?.close();
    await closeBankWithClient({ bank, client });
  });

  const liveKey = async () => (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const txidOf = (id: string) => `svc${id.replace("_", "")}`;
  const waiting = async (key: string, amountCents = 5_000) => {
    const res = await api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
    expectStatus(res, 201);
    expect(res.body.status).toBe("WAITING_PAYMENT");
    return res.body;
  };
  const status = async (key: string, id: string) => {
    const res = await api(key).GET("/api/v1/transactions/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };
  const events = async (key: string, type: string) => {
    const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(res, 200);
    return res.body.data.filter((e) => e.type === type).map((e) => (e.data.object as { id: string }).id);
  };
  const until = async (check: () => Promise<boolean>, what: string, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const reconcile = () =>
    server.domain.bankReconcile.reconcile({
      from: new Date(Date.now() - 120_000).toISOString(),
      to: new Date().toISOString(),
    });

  /** Nothing credited twice; the account's balance is what the bank received for its charges, less fees and returns. */
  async function expectLedgerEqualsBank(key: string): Promise<void> {
    const list = await api(key).GET("/api/v1/transactions", { params: { query: { limit: 100 } } });
    expectStatus(list, 200);
    const paidEvents = await events(key, "transaction.paid");
    expect(paidEvents.length, "one transaction.paid per charge").toBe(new Set(paidEvents).size);
    const received = bank.received(bank.customer.clientId);
    let expected = 0;
    for (const charge of list.body.data.filter((t) => t.status === "PAID" || t.paidAt !== null)) {
      const pixes = received.filter((p) => p.txid === txidOf(charge.id));
      expect(pixes, `one Pix at the bank for ${charge.id}`).toHaveLength(1);
      expect(paidEvents).toContain(charge.id);
      const returned = (pixes[0]?.devolucoes ?? [])
        .filter((d) => d.status === "DEVOLVIDO")
        .reduce((sum, d) => sum + cents(d.valor), 0);
      expected += charge.amountCents - charge.feeCents - returned;
    }
    for (const charge of list.body.data.filter((t) => t.paidAt === null)) {
      expect(paidEvents).not.toContain(charge.id);
    }
    const balance = await api(key).GET("/api/v1/balance");
    expectStatus(balance, 200);
    expect(balance.body.availableCents + balance.body.pendingCents + balance.body.blockedCents).toBe(expected);
    expect(bank.requests().filter((r) => !r.requestValid)).toEqual([]);
  }

  test(`when a ${dialect} callback arrives twice, then the Pix is credited once`, async () => {
    const key = await liveKey();
    const charge = await waiting(key);
    bank.faultCallbacks({ kind: "duplicate", count: 1 });
    const paid = bank.pay(charge.pix.copyPaste);
    await bank.settled();
    await until(async () => (await status(key, charge.id)).status === "PAID", "paid");
    expect(bank.callbacks().filter((c) => c.endToEndIds.includes(paid.endToEndId)).length).toBeGreaterThanOrEqual(2);
    await expectLedgerEqualsBank(key);
  });

  test(`when a ${dialect} callback is forged, then nothing is credited for it and the honest Pix is`, async () => {
    const key = await liveKey();
    const charge = await waiting(key);
    bank.faultCallbacks({ kind: "forge", count: 1 });
    bank.pay(charge.pix.copyPaste);
    await bank.settled();
    // The forged notice names an unknown end-to-end id: read back, the bank does not know it.
    expect((await status(key, charge.id)).status).toBe("WAITING_PAYMENT");
    const run = await reconcile();
    expect(run?.counts.credited).toBe(1);
    expect((await status(key, charge.id)).status).toBe("PAID");
    await expectLedgerEqualsBank(key);
  });

  test(`when a ${dialect} callback is lost, then one reconciliation credits it, and a second credits nothing`, async () => {
    const key = await liveKey();
    const charge = await waiting(key);
    bank.faultCallbacks({ kind: "drop", count: 1 });
    bank.pay(charge.pix.copyPaste);
    await bank.settled();
    expect((await status(key, charge.id)).status).toBe("WAITING_PAYMENT");
    expect((await reconcile())?.counts.credited).toBe(1);
    expect((await status(key, charge.id)).status).toBe("PAID");
    expect((await reconcile())?.counts.credited).toBe(0);
    await expectLedgerEqualsBank(key);
  });

  test(`when a ${dialect} MED devolução's notices arrive twice and out of order, then the dispute opens and closes once`, async () => {
    const key = await liveKey();
    const charge = await waiting(key, 8_000);
    const paid = bank.pay(charge.pix.copyPaste);
    await bank.settled();
    await until(async () => (await status(key, charge.id)).status === "PAID", "paid");
    // Out of order: the first notice we read already says the MED is returned (DEVOLVIDO),
    // and it comes twice; the dispute must still open, then close, each once.
    bank.faultCallbacks({ kind: "duplicate", count: 1 });
    bank.raiseMed({ endToEndId: paid.endToEndId, natureza: "MED_FRAUDE", amountCents: 3_000, status: "DEVOLVIDO" });
    await bank.settled();
    await until(async () => (await events(key, "dispute.closed")).length > 0, "dispute closed");
    expect(await reconcile()).toBeTruthy(); // a later sighting changes nothing
    expect(await events(key, "dispute.opened")).toEqual([charge.id]);
    expect(await events(key, "dispute.closed")).toEqual([charge.id]);
    const read = await status(key, charge.id);
    expect(read.dispute).toMatchObject({ status: "LOST" });
    await expectLedgerEqualsBank(key);
  });
}

for (const store of eachStore("bank_faults_dialects")) {
  store.describe(`callback faults in the bank's dialects on the ${store.name} store`, () => {
    describe("efi", () => dialectSuite(store, "efi"));
    describe("inter", () => dialectSuite(store, "inter"));
  });
}
