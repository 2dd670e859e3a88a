import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { payoutCallsAtOnce } from "../../src/bank/payouts.js";
import { bankTransferIdOf } from "../../src/domain/balance/index.js";
import { byId, chargeBody, expectStatus } from "../harness.js";
import { startAdmin } from "../support/admin-process.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eachStore, type StoreUnderTest } from "../support/stores.js";
import { eventually, expectEveryPayoutRequestValid } from "./payouts-support.js";
import { withdrawalsAtBank } from "./withdrawals-at-bank-support.js";

// Production withdrawals paid out by the bank (issue 36 §1), through the real HTTP stack on both
// stores, against the fake bank in the Efí dialect through the real adapter: the operator connects
// it (with a per-transfer limit of R$ 100,00), a production key withdraws, the transfers reach the
// bank (each by its own id), the test settles them one by one in the bank (its payout policy leaves
// them pending), and the payout job's pass (`withdrawalPayouts.followPending`, what its timer runs)
// ends the withdrawal. Every payout request is checked against our document of Efí's API.

type Withdrawal = components["schemas"]["Withdrawal"];

/** The connection's per-transfer limit in these tests: R$ 100,00. */
const limitCents = 10_000;

function withdrawalsAtBankSuite(store: StoreUnderTest) {
  const at = withdrawalsAtBank(store, { dialect: "efi", limitCents });
  const { server, operator, api, read, fundedKey, available, withdraw, ended, events } = at;
  /** The bank's record of each of the withdrawal's transfers, once all of them reached it. */
  const atBank = async (w: Withdrawal) => {
    const ids = w.transfers.map((t) => bankTransferIdOf(t.id));
    await eventually(
      async () =>
        ids.every((id) =>
          at
            .bank()
            .payouts?.list()
            .some((p) => p.id === id),
        ),
      5_000,
    );
    return ids.map(
      (id) =>
        at
          .bank()
          .payouts?.list()
          .filter((p) => p.id === id) ?? [],
    );
  };

  test("when a withdrawal is above the per-transfer limit and the bank fails one transfer, then it ends PARTIALLY_PAID with that part back in the balance, its events at a webhook endpoint", async () => {
    const key = await fundedKey(40_000);
    const balance = await api(key).GET("/api/v1/balance");
    expectStatus(balance, 200);
    const fee = balance.body.withdrawFeeCents;
    const receiver: Receiver = await startReceiver([204]);
    const listening = await startAdmin(
      ["--json", "listen", "--forward-to", receiver.url, "--interval", "300"],
      { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: key, ADMIN_TOKEN: undefined },
      "Segredo de assinatura",
    );
    try {
      const before = await available(key);
      const created = await withdraw(key, 25_000 + fee);
      expect(created.status).toBe("PENDING");
      expect(created.transfers.map((t) => [t.amountCents, t.status])).toEqual([
        [limitCents, "PENDING"],
        [limitCents, "PENDING"],
        [5_000, "PENDING"],
      ]);
      expect(await available(key)).toBe(before - 25_000 - fee);
      expect(server.mail.some((m) => m.subject.startsWith("Saque de"))).toBe(true);

      const sent = await atBank(created);
      expect(sent.map((records) => records.length)).toEqual([1, 1, 1]);
      expect(sent.map((records) => [records[0]?.amount, records[0]?.key])).toEqual([
        [limitCents, "recebedor@example.com"],
        [limitCents, "recebedor@example.com"],
        [5_000, "recebedor@example.com"],
      ]);
      const [first, second, third] = created.transfers.map((t) => bankTransferIdOf(t.id));
      at.bank().payouts?.settle(first as string, "pay");
      at.bank().payouts?.settle(second as string, "fail", "Conta do recebedor encerrada");
      at.bank().payouts?.settle(third as string, "pay");

      const done = await ended(key, created);
      expect(done).toMatchObject({
        status: "PARTIALLY_PAID",
        paidAmountCents: 15_000,
        returnedAmountCents: limitCents,
        netAmountCents: 25_000,
      });
      expect(done.failureReason).toContain("NAO_REALIZADO");
      expect(done.transfers.map((t) => t.status)).toEqual(["PAID", "FAILED", "PAID"]);
      expect(done.transfers[0]?.endToEndId).toMatch(/^E/);
      expect(done.transfers[1]?.failureReason).toBeTruthy();
      expect(await available(key)).toBe(before - 25_000 - fee + limitCents);

      // A pass more changes nothing: the failed part came back once.
      await server.domain.withdrawalPayouts.followPending();
      expect(await available(key)).toBe(before - 25_000 - fee + limitCents);
      expect(await events(key, created.id)).toEqual(["withdrawal.partially_paid", "withdrawal.created"]);
      await eventually(async () => {
        const types = receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
        return types.includes("withdrawal.created") && types.includes("withdrawal.partially_paid");
      }, 10_000);
      expectEveryPayoutRequestValid(at.bank(), /^\/v[23]\/gn\//);
    } finally {
      listening.kill();
      await receiver.close();
    }
  }, 30_000);

  test("when the bank fails every transfer, then the withdrawal is FAILED and all of it, fee included, is back in the balance", async () => {
    const key = await fundedKey(30_000);
    const before = await available(key);
    const created = await withdraw(key, 15_000);
    expect(created.transfers).toHaveLength(2);
    await atBank(created);
    for (const t of created.transfers) at.bank().payouts?.settle(bankTransferIdOf(t.id), "fail", "Chave inexistente");
    const done = await ended(key, created);
    expect(done).toMatchObject({ status: "FAILED", paidAmountCents: 0, returnedAmountCents: 15_000 });
    expect(done.transfers.map((t) => t.status)).toEqual(["FAILED", "FAILED"]);
    expect(await available(key)).toBe(before);
    expect(await events(key, created.id)).toEqual(["withdrawal.failed", "withdrawal.created"]);
  });

  test("when the bank's answer to a send is lost and its reads fail for a while, then the transfer is read back by its id (never sent again) and paid once", async () => {
    const key = await fundedKey(20_000);
    const before = await available(key);
    // The send is made but its answer never arrives (the adapter's bounded wait ends), and the
    // create's read of it answers 503: that pass learns nothing and writes nothing, as a process
    // killed between the bank's answer and our write would have left it. The job reads it back.
    at.bank().payouts?.loseAnswers(1);
    at.bank().faultCalls({ kind: "status", status: 503, count: 1, route: "^GET (/v2)?/gn/pix/enviados/" });
    const created = await withdraw(key, 5_000);
    const id = bankTransferIdOf(created.transfers[0]?.id as string);
    const [records] = await atBank(created);
    expect(records).toHaveLength(1);
    at.bank().payouts?.settle(id, "pay");
    const done = await ended(key, created);
    expect(done.status).toBe("PAID");
    expect(done.paidAmountCents).toBe(created.netAmountCents);
    expect(done.transfers[0]?.endToEndId).toBe(records?.[0]?.endToEndId);
    expect(
      at
        .bank()
        .payouts?.list()
        .filter((p) => p.id === id),
    ).toHaveLength(1);
    const calls = at
      .bank()
      .requests()
      .filter((r) => r.path.includes(id));
    // One send (its answer lost), then reads only: the unknown outcome was read back, not sent again.
    expect(calls.filter((r) => r.method === "PUT").map((r) => r.fault)).toEqual(["lost"]);
    expect(calls.filter((r) => r.method === "GET").map((r) => r.status)).toEqual([503, 200]);
    expect(await available(key)).toBe(before - 5_000);
  });

  test("when the platform's balance at the bank does not cover a withdrawal, then it waits PENDING, the operator is told, and it is paid once the balance allows", async () => {
    const key = await fundedKey(20_000);
    const clientId = at.bank().customer.clientId;
    const saved = at.bank().payouts?.balanceOf(clientId) ?? 0;
    at.bank().payouts?.setBalance(clientId, 1_000);
    try {
      const created = await withdraw(key, 8_000);
      await server.domain.withdrawalPayouts.followPending();
      const waiting = await read(key, created.id);
      expect(waiting.status).toBe("PENDING");
      const id = bankTransferIdOf(created.transfers[0]?.id as string);
      expect(
        at
          .bank()
          .payouts?.list()
          .some((p) => p.id === id),
      ).toBe(false);

      const view = await operator().GET("/admin/v1/bank-connection");
      expectStatus(view, 200);
      expect(view.body.health.withdrawalsWaitingForBalance).toBeGreaterThanOrEqual(1);
      expect(view.body.health.warnings.join(" ")).toContain("aguardam saldo na conta da plataforma");

      at.bank().payouts?.setBalance(clientId, saved);
      await eventually(async () => {
        await server.domain.withdrawalPayouts.followPending();
        return (
          at
            .bank()
            .payouts?.list()
            .some((p) => p.id === id) ?? false
        );
      }, 5_000);
      at.bank().payouts?.settle(id, "pay");
      expect((await ended(key, created)).status).toBe("PAID");
      const after = await operator().GET("/admin/v1/bank-connection");
      expectStatus(after, 200);
      expect(after.body.health.withdrawalsWaitingForBalance).toBeUndefined();
    } finally {
      at.bank().payouts?.setBalance(clientId, Math.max(saved, at.bank().payouts?.balanceOf(clientId) ?? 0));
    }
  });

  test("when a withdrawal needs more than 10 transfers, then it is refused 400 naming the largest one, and nothing moves", async () => {
    const key = await fundedKey(150_000);
    const before = await available(key);
    const res = await api(key).POST("/api/v1/withdrawals", {
      body: { amountCents: 120_000, pixKey: "recebedor@example.com", pixKeyType: "EMAIL" },
    });
    expectStatus(res, 400);
    expect(res.body).toMatchObject({ code: "REQUEST_ERROR" });
    expect(res.body.message).toContain("até 10 transferências");
    expect(await available(key)).toBe(before);
  });

  test(`when 40 withdrawals are made at once, then at most ${payoutCallsAtOnce} payout calls are at the bank at a time and each transfer reaches it once`, async () => {
    const keys = await Promise.all([1, 2, 3, 4].map(() => fundedKey(20_000)));
    const since = new Date().toISOString();
    // Each call waits 100 ms at the bank: the burst's passes overlap there unless held back.
    at.bank().setLatency(100);
    try {
      const made = await Promise.all(keys.flatMap((key) => Array.from({ length: 10 }, () => withdraw(key, 1_000))));
      const atTheBank = await Promise.all(made.map(atBank));
      expect(atTheBank.map((records) => records.map((r) => r.length))).toEqual(made.map(() => [1]));
    } finally {
      at.bank().setLatency(0);
    }
    // The payouts' calls (sends, reads, the balance) as intervals at the bank, and the most at once.
    // Each interval ends 2 ms early: the bank notes a call's start to the millisecond (`at`) and its
    // length from then (`ms`, ended by the answer's "finish"), so a call that followed another
    // within a millisecond, its slot freed by the answer, could read as overlapping it (17 seen
    // once); every call lasts the bank's 100 ms, so an overlap past the bound is not hidden.
    // The bank notes a call when it arrives and its length when its answer has gone: the last
    // sends' answers may still be on their way when their transfers are seen at the bank (36 of 40
    // read once). Their lengths are waited for, a bounded time.
    const payoutCalls = () =>
      at
        .bank()
        .requests()
        .filter((r) => r.at >= since && r.path.includes("/gn/"));
    for (let waited = 0; payoutCalls().some((r) => r.ms === undefined) && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const calls = payoutCalls()
      .filter((r) => r.ms !== undefined)
      .map((r) => ({ from: Date.parse(r.at), to: Date.parse(r.at) + r.ms! - 2 }));
    const edges = calls.flatMap((c) => [
      { t: c.from, d: 1 },
      { t: c.to, d: -1 },
    ]);
    edges.sort((a, b) => a.t - b.t || a.d - b.d);
    let now = 0;
    let most = 0;
    for (const edge of edges) most = Math.max(most, (now += edge.d));
    expect(calls.length).toBeGreaterThanOrEqual(40);
    // The burst did overlap at the bank (a bound never reached would prove nothing) and stayed within it.
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(payoutCallsAtOnce);
  });

  test("when the key is a test key, then the withdrawal never reaches the bank", async () => {
    const { testKey } = await server.newAccount({ releasePeriodDays: 0 });
    const charge = await api(testKey).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 5_000 }) });
    expectStatus(charge, 201);
    expectStatus(await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id)), 200);
    const before = at.bank().payouts?.list().length;
    const created = await withdraw(testKey, 2_500);
    expect(created.status).toBe("PAID");
    expect(at.bank().payouts?.list().length).toBe(before);
  });
}

for (const store of eachStore("withdrawals_at_bank")) {
  store.describe(`production withdrawals paid out by the bank on the ${store.name} store`, () => {
    describe("with the fake bank in the efi dialect", () => withdrawalsAtBankSuite(store));
  });
}
