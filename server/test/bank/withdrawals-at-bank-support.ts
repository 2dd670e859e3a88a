// What the tests of withdrawals paid out by the bank share (withdrawals-at-bank*.test.ts): a test
// server on a store, with the real bank access reading the connection the operator sets, connected
// to a fake bank in a dialect that sends Pix, and the calls the scenarios make through HTTP.
import { afterAll, beforeAll, expect } from "vitest";
import type { components } from "../../../generated/api.js";
import { startFakeBank, type FakeBank } from "../../../fake-bank/src/bank.js";
import type { PayoutPolicy } from "../../../fake-bank/src/payouts.js";
import { bankAccess } from "../../src/bank/access.js";
import { loadBankCredentials } from "../../src/domain/bank/index.js";
import { developmentKeyring } from "../../src/domain/core/secrets.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { connectionBodyOf } from "../support/fake-bank-credentials.js";
import { serverOn, type StoreUnderTest } from "../support/stores.js";
import { eventually } from "./payouts-support.js";

type Withdrawal = components["schemas"]["Withdrawal"];

/**
 * Before the enclosing describe's tests: a fake bank in `dialect` (its payouts following `policy`),
 * and a server on `store` whose operator connects it with the per-transfer limit `limitCents`.
 */
export function withdrawalsAtBank(
  store: StoreUnderTest,
  options: { dialect: "efi" | "inter"; limitCents: number; policy?: Partial<PayoutPolicy> },
) {
  let bank: FakeBank | undefined;
  const secrets = developmentKeyring();
  // The real access: it reads the connection the operator sets (the store's), as main.ts wires it.
  const access = bankAccess({
    load: () => loadBankCredentials({ store: server.store, secrets }),
    timeoutMs: 1_500,
  });
  const server = serverOn(store, { bank: access, clock: new ManualClock(new Date()), secrets });
  const operator = () => operatorApi(server.baseUrl, { token: testAdminToken });

  beforeAll(async () => {
    bank = await startFakeBank({ dialect: options.dialect, payouts: { mode: "pending", ...options.policy } });
    const connected = await operator().PUT("/admin/v1/bank-connection", {
      body: connectionBodyOf(bank, { payoutLimitCents: options.limitCents }),
    });
    expectStatus(connected, 200);
    expect(connected.body.payoutLimitCents).toBe(options.limitCents);
  });
  afterAll(async () => {
    await access.close();
    await bank?.close();
  });

  const api = (key: string) => publicApi(server.baseUrl, { key });
  const read = async (key: string, id: string): Promise<Withdrawal> => {
    const res = await api(key).GET("/api/v1/withdrawals/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };

  return {
    server,
    operator,
    api,
    read,
    /** The fake bank, once started. */
    bank(): FakeBank {
      if (!bank) throw new Error("the fake bank is not started yet");
      return bank;
    },
    /** A verified account's production key holding `cents` available (a charge paid by the simulator). */
    async fundedKey(cents: number): Promise<string> {
      const key = (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
      const charge = await api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: cents }) });
      expectStatus(charge, 201);
      expectStatus(await operator().POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.body.id)), 200);
      return key;
    },
    async available(key: string): Promise<number> {
      const res = await api(key).GET("/api/v1/balance");
      expectStatus(res, 200);
      return res.body.availableCents;
    },
    async withdraw(key: string, amountCents: number, pixKey = "recebedor@example.com"): Promise<Withdrawal> {
      const res = await api(key).POST("/api/v1/withdrawals", { body: { amountCents, pixKey, pixKeyType: "EMAIL" } });
      expectStatus(res, 201);
      return res.body;
    },
    /** The payout job's pass (what its timer runs), until `w` ends; answers it ended. */
    async ended(key: string, w: Withdrawal): Promise<Withdrawal> {
      // Up to the adapter's circuit breaker's pause (5 s) after failed calls, and more.
      await eventually(async () => {
        await server.domain.withdrawalPayouts.followPending();
        return (await read(key, w.id)).status !== "PENDING";
      }, 12_000);
      return read(key, w.id);
    },
    /** The types of the scope's events about `id`, newest first. */
    async events(key: string, id: string): Promise<string[]> {
      const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
      expectStatus(res, 200);
      return res.body.data.filter((e) => (e.data.object as { id?: string }).id === id).map((e) => e.type);
    },
  };
}
