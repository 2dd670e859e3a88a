import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { idempotencyKeyOf } from "../../src/bank/payouts-inter.js";
import { bankTransferIdOf } from "../../src/domain/balance/index.js";
import { expectStatus, testAdminToken } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { eachStore, type StoreUnderTest } from "../support/stores.js";
import { eventually, expectEveryPayoutRequestValid } from "./payouts-support.js";
import { withdrawalsAtBank } from "./withdrawals-at-bank-support.js";

// Production withdrawals paid out by the bank (issue 36 §1) in Banco Inter's dialect, on both
// stores, against the fake bank through the real adapter: Inter reads a Pix sent only by its own
// code, so a lost answer is recovered by sending again with the same idempotency key; a transfer
// above the account's approval threshold waits for a person's approval at the bank. And the
// operator's per-transfer limit, changed by the CLI. (Efí's dialect: withdrawals-at-bank.test.ts.)

type Withdrawal = components["schemas"]["Withdrawal"];

function interSuite(store: StoreUnderTest) {
  const at = withdrawalsAtBank(store, {
    dialect: "inter",
    limitCents: 10_000,
    policy: { approvalAboveCents: 8_000 },
  });
  const { server, operator, read, fundedKey, available, withdraw, ended, events } = at;
  /** Inter's idempotency key of each of the withdrawal's transfers (the fake bank's id of it). */
  const keysOf = (w: Withdrawal) => w.transfers.map((t) => idempotencyKeyOf(bankTransferIdOf(t.id)));
  const sent = (id: string) =>
    at
      .bank()
      .payouts?.list()
      .filter((p) => p.id === id) ?? [];
  const reachedBank = (w: Withdrawal) => eventually(async () => keysOf(w).every((id) => sent(id).length > 0), 5_000);

  test("when a transfer is above the account's approval threshold, then the withdrawal waits PENDING until a person approves it at the bank, then ends PAID", async () => {
    const key = await fundedKey(30_000);
    const before = await available(key);
    const created = await withdraw(key, 15_000);
    const net = created.netAmountCents;
    expect(created.transfers.map((t) => t.amountCents)).toEqual([10_000, net - 10_000]);
    await reachedBank(created);
    const [large, small] = keysOf(created) as [string, string];
    expect(sent(large)[0]?.state).toBe("AWAITING_APPROVAL");
    expect(sent(small)[0]?.state).toBe("PENDING");

    at.bank().payouts?.settle(small, "pay");
    // The job's passes learn the small one paid; the large one still waits for its approval.
    await eventually(async () => {
      await server.domain.withdrawalPayouts.followPending();
      return (await read(key, created.id)).transfers[1]?.status === "PAID";
    }, 5_000);
    const waiting = await read(key, created.id);
    expect(waiting.status).toBe("PENDING");
    expect(waiting.transfers.map((t) => t.status)).toEqual(["PENDING", "PAID"]);

    at.bank().payouts?.approve(large);
    at.bank().payouts?.settle(large, "pay");
    const done = await ended(key, created);
    expect(done).toMatchObject({ status: "PAID", paidAmountCents: net, returnedAmountCents: 0 });
    expect(await available(key)).toBe(before - 15_000);
    expect(await events(key, created.id)).toEqual(["withdrawal.paid", "withdrawal.created"]);
    expect(sent(large)).toHaveLength(1);
    expectEveryPayoutRequestValid(at.bank(), /^\/banking\/v2\//);
  });

  test("when the bank's answer to a send is lost, then it is sent again with the same idempotency key and the bank pays it once", async () => {
    const key = await fundedKey(20_000);
    const before = await available(key);
    at.bank().payouts?.loseAnswers(1);
    const created = await withdraw(key, 6_000);
    await reachedBank(created);
    const [id] = keysOf(created) as [string];
    // The second send (same key) is answered with the transfer the bank already has.
    await eventually(async () => {
      const posts = at
        .bank()
        .requests()
        .filter((r) => r.method === "POST" && r.path === "/banking/v2/pix");
      return posts.some((r) => r.fault === "lost") && posts.some((r) => r.status === 200);
    }, 5_000);
    at.bank().payouts?.settle(id, "pay");
    const done = await ended(key, created);
    expect(done.status).toBe("PAID");
    expect(sent(id)).toHaveLength(1);
    expect(await available(key)).toBe(before - 6_000);
  });

  test("when the operator lowers the per-transfer limit by the CLI, then the connection shows it, its change log names it, and the next withdrawal is split by it", async () => {
    const env = { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken };
    const changed = await runAdmin(["--json", "bank", "payout-limit", "5000"], env);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ payoutLimitCents: 5_000 });
    try {
      const view = await operator().GET("/admin/v1/bank-connection");
      expectStatus(view, 200);
      expect(view.body.payoutLimitCents).toBe(5_000);
      expect(view.body.recentChanges[0]?.changes.payoutLimitCents).toEqual({ from: 10_000, to: 5_000 });
      const refused = await runAdmin(["bank", "payout-limit", "99"], env);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("--payout-limit-cents");

      const key = await fundedKey(20_000);
      const created = await withdraw(key, 12_000);
      const net = created.netAmountCents;
      expect(created.transfers.map((t) => t.amountCents)).toEqual([5_000, 5_000, net - 10_000]);
      await reachedBank(created);
      for (const id of keysOf(created)) at.bank().payouts?.settle(id, "pay");
      expect((await ended(key, created)).status).toBe("PAID");
    } finally {
      const back = await operator().PATCH("/admin/v1/bank-connection", { body: { payoutLimitCents: 10_000 } });
      expectStatus(back, 200);
    }
  });
}

for (const store of eachStore("withdrawals_at_bank_inter")) {
  store.describe(`production withdrawals paid out by the bank on the ${store.name} store`, () => {
    describe("with the fake bank in the inter dialect", () => interSuite(store));
  });
}
