import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { bankTransferIdOf, payoutReadPauseMs } from "../../src/domain/balance/index.js";
import { expectStatus, testAdminToken } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { eachStore, type StoreUnderTest } from "../support/stores.js";
import { eventually } from "./payouts-support.js";
import { withdrawalsAtBank } from "./withdrawals-at-bank-support.js";

// Issue 36 §3, withdrawals paid out by the bank: the operator's reconciliation (POST
// /admin/v1/bank/reconciliations, `admin bank reconcile`) also settles their transfers, and says
// how many; the payout job reads an old pending transfer less and less often (payoutReadPauseMs)
// instead of at every pass. On both stores, against the fake bank (Efí) through the real adapter,
// the service's clock moved by hand.

type Withdrawal = components["schemas"]["Withdrawal"];

/** The per-transfer limit here: R$ 100,00. */
const limitCents = 10_000;

function suite(store: StoreUnderTest) {
  const at = withdrawalsAtBank(store, { dialect: "efi", limitCents });
  const { server, operator, read, fundedKey, available, withdraw, events } = at;

  /** The withdrawal's transfers' ids at the bank, once each reached it. */
  const atBank = async (w: Withdrawal): Promise<string[]> => {
    const ids = w.transfers.map((t) => bankTransferIdOf(t.id));
    await eventually(async () => ids.every((id) => at.bank().payouts?.get(at.bank().customer.clientId, id)), 5_000);
    return ids;
  };
  /** Our reads of transfer `id` at the bank so far. */
  const readsOf = (id: string) =>
    at
      .bank()
      .requests()
      .filter((r) => r.method === "GET" && r.path.endsWith(`/id-envio/${id}`)).length;

  test("when the bank settled a withdrawal's transfers and the operator reconciles, then the answer counts them, the withdrawal ends once, and a second run settles nothing", async () => {
    const key = await fundedKey(40_000);
    const before = await available(key);
    const created = await withdraw(key, 15_000);
    expect(created.transfers).toHaveLength(2);
    const [first, second] = await atBank(created);
    at.bank().payouts?.settle(first as string, "pay");
    at.bank().payouts?.settle(second as string, "fail", "Chave inexistente");
    expect((await read(key, created.id)).status).toBe("PENDING");

    const run = await operator().POST("/admin/v1/bank/reconciliations", { body: {} });
    expectStatus(run, 200);
    expect(run.body.withdrawalTransfersSettled).toBe(2);
    const done = await read(key, created.id);
    expect(done.status).toBe("PARTIALLY_PAID");
    expect(done.transfers.map((t) => t.status)).toEqual(["PAID", "FAILED"]);
    expect(await available(key)).toBe(before - 15_000 + (done.returnedAmountCents ?? 0));
    expect(done.returnedAmountCents).toBe(created.netAmountCents - limitCents);

    const again = await operator().POST("/admin/v1/bank/reconciliations", { body: {} });
    expectStatus(again, 200);
    expect(again.body.withdrawalTransfersSettled).toBe(0);
    expect(await events(key, created.id)).toEqual(["withdrawal.partially_paid", "withdrawal.created"]);
  });

  test("when the operator runs admin bank reconcile, then the CLI prints the transfers it settled", async () => {
    const key = await fundedKey(20_000);
    const created = await withdraw(key, 6_000);
    const [id] = await atBank(created);
    at.bank().payouts?.settle(id as string, "pay");
    const cli = await runAdmin(["--json", "bank", "reconcile", "--since", "5"], {
      PIX_ADMIN_URL: server.baseUrl,
      ADMIN_TOKEN: testAdminToken,
    });
    expect(cli.code, cli.stderr).toBe(0);
    const printed = JSON.parse(cli.stdout) as { withdrawalTransfersSettled: number };
    expect(printed.withdrawalTransfersSettled).toBe(1);
    expect((await read(key, created.id)).status).toBe("PAID");
  });

  test("when a transfer stays pending at the bank for long, then the payout job reads it less and less often, and the operator's run reads it at once", async () => {
    const key = await fundedKey(20_000);
    const created = await withdraw(key, 6_000);
    const [id] = (await atBank(created)) as [string];
    // The create's own pass over, young: read at every pass.
    await server.domain.withdrawalPayouts.pass(created.id);
    const young = readsOf(id);
    for (let i = 0; i < 3; i++) {
      await server.domain.withdrawalPayouts.followPending();
      server.clock.advance(1);
    }
    expect(readsOf(id) - young).toBe(3);

    // Ten minutes old: after a read, the next waits a quarter of its age (200 s here).
    server.clock.advance(600);
    const old = readsOf(id);
    await server.domain.withdrawalPayouts.followPending();
    expect(readsOf(id) - old).toBe(1);
    // Five minutes of the job's passes (every 5 s): 60 passes, 1 read more, not 60.
    for (let i = 0; i < 60; i++) {
      server.clock.advance(5);
      await server.domain.withdrawalPayouts.followPending();
    }
    expect(readsOf(id) - old).toBe(2);

    // The bank settles it meanwhile: the operator's run reads it now.
    at.bank().payouts?.settle(id, "pay");
    const run = await operator().POST("/admin/v1/bank/reconciliations", { body: {} });
    expectStatus(run, 200);
    expect(run.body.withdrawalTransfersSettled).toBe(1);
    expect((await read(key, created.id)).status).toBe("PAID");
    expect(readsOf(id) - old).toBe(3);
  });
}

describe("how long the payout job leaves a pending transfer unread", () => {
  test("when a transfer ages, then the pause is a quarter of its age, at most 15 minutes", () => {
    expect(payoutReadPauseMs(0)).toBe(0);
    expect(payoutReadPauseMs(20_000)).toBe(5_000);
    expect(payoutReadPauseMs(600_000)).toBe(150_000);
    expect(payoutReadPauseMs(10 * 3_600_000)).toBe(900_000);
    expect(payoutReadPauseMs(-5_000)).toBe(0);
  });
});

for (const store of eachStore("payouts_reconcile")) {
  store.describe(`withdrawals paid out by the bank, reconciled and read back on the ${store.name} store`, () => {
    suite(store);
  });
}
