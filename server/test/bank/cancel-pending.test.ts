import { afterAll, beforeAll, expect, test } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { byId, chargeBody, expectStatus, publicApi } from "../harness.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// A production charge still PENDING at a slow bank can be cancelled (issue 35, record 0051): the
// registration is stopped, and a cob that lands after the cancellation is removed at once, so it
// never stays payable at the bank. Through HTTP, against the fake bank, on both stores.

const waitMs = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cancelSuite(store: StoreUnderTest) {
  let bank: FakeBank;
  let client: BankClient | null = null;
  const access: BankAccess = { current: () => Promise.resolve(client), waitMs };
  const server = serverOn(store, { bank: access, clock: new ManualClock(new Date()) });

  beforeAll(async () => {
    ({ bank, client } = await startBankWithClient({ tokenTtlSeconds: 3600 }, { timeoutMs: 5_000, warmUp: true }));
  });
  afterAll(() => closeBankWithClient({ bank, client }));

  const liveKey = async () => (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
  const txidOf = (id: string) => `svc${id.replace("_", "")}`;
  const pendingCharge = async (key: string) => {
    const res = await publicApi(server.baseUrl, { key }).POST("/api/v1/charges/pix", {
      body: chargeBody({ amountCents: 3_100 }),
    });
    expectStatus(res, 201);
    expect(res.body.status).toBe("PENDING");
    return res.body;
  };
  const cancel = (key: string, id: string) =>
    publicApi(server.baseUrl, { key }).POST("/api/v1/transactions/{id}/cancel", byId(id));
  const runTasks = async (seconds: number) => {
    server.clock.advance(seconds);
    await server.domain.bankWork.runDue();
  };

  test("when a PENDING charge is cancelled and its registration lands afterwards, then the cob is removed at once and cannot be paid", async () => {
    const key = await liveKey();
    bank.setLatency(2_000);
    let charge;
    try {
      charge = await pendingCharge(key);
      const cancelled = await cancel(key, charge.id);
      expectStatus(cancelled, 200);
      expect(cancelled.body.status).toBe("CANCELLED");
      // The registration sent before the cancellation lands at the bank.
      const txid = txidOf(charge.id);
      await sleep(2_500);
      expect((await client?.readCharge(txid))?.status).toBe("ATIVA");
    } finally {
      bank.setLatency(0);
    }
    await runTasks(1);
    const atBank = await client?.readCharge(txidOf(charge.id));
    expect(atBank?.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    expect(() => bank.pay(atBank?.copyPaste ?? "")).toThrow();
    const read = await publicApi(server.baseUrl, { key }).GET("/api/v1/transactions/{id}", byId(charge.id));
    expectStatus(read, 200);
    expect(read.body).toMatchObject({ status: "CANCELLED", pix: { copyPaste: "" } });
    expect(bank.requests().filter((r) => !r.requestValid)).toEqual([]);
  });

  test("when a PENDING charge's registration never reached the bank, then the cancel answers CANCELLED, nothing is registered, and the removal gives up after its grace", async () => {
    const key = await liveKey();
    bank.faultCalls({ kind: "timeout", count: 1, route: "^PUT /cob/" });
    const charge = await pendingCharge(key);
    const cancelled = await cancel(key, charge.id);
    expectStatus(cancelled, 200);
    expect(cancelled.body.status).toBe("CANCELLED");
    bank.clearFaults();
    const txid = txidOf(charge.id);
    const patches = () => bank.requests().filter((r) => r.method === "PATCH" && r.path.endsWith(`/cob/${txid}`));
    await runTasks(1);
    expect(patches().length).toBe(1); // the bank does not know it: tried again later
    await runTasks(200);
    expect(patches().length).toBe(2); // past the grace: done
    await runTasks(1_000);
    expect(patches().length).toBe(2);
    expect(await client?.readCharge(txid)).toBeNull();
    // No registration after the cancellation: the job has nothing to register.
    expect(bank.requests().filter((r) => r.method === "PUT" && r.path.endsWith(`/cob/${txid}`)).length).toBe(1);
  });

  test("when a charge is PAID, EXPIRED or already CANCELLED, then the cancel still answers 400 REQUEST_ERROR", async () => {
    const key = await liveKey();
    const res = await publicApi(server.baseUrl, { key }).POST("/api/v1/charges/pix", { body: chargeBody() });
    expectStatus(res, 201);
    expectStatus(await cancel(key, res.body.id), 200);
    const again = await cancel(key, res.body.id);
    expectStatus(again, 400);
    expect(again.body.message).toContain("status atual CANCELLED");
  });
}

for (const store of eachStore("bank_cancel_pending")) {
  store.describe(`a PENDING charge cancelled on the ${store.name} store`, () => cancelSuite(store));
}
