import { afterAll, beforeAll, expect, test } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { newId } from "../../src/domain/core/ids.js";
import { bankTask, txidOf } from "../../src/domain/payments/index.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The work owed to the bank is claimed in batches (charges-at-bank.ts `runDue`): a claim holds a
// task for 60 s, and the batch's tasks run one after another. With a slow bank the later ones
// must not start so late that they are still running when their claim runs out (another process
// may claim them then, and call the bank for them too): past half the claim, what was not started
// is handed back, due at once. On both stores, against the fake bank, on the server's clock.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function claimsSuite(store: StoreUnderTest) {
  let bank: FakeBank;
  let client: BankClient | null = null;
  const access: BankAccess = { current: () => Promise.resolve(client), waitMs: 600 };
  const clock = new ManualClock(new Date());
  const server = serverOn(store, { bank: access, clock });

  beforeAll(async () => {
    ({ bank, client } = await startBankWithClient({ tokenTtlSeconds: 3600 }, { timeoutMs: 5_000, warmUp: true }));
  });
  afterAll(() => closeBankWithClient({ bank, client }));

  /** Bank requests that name `chargeId`'s txid. */
  const callsFor = (chargeId: string) => bank.requests().filter((r) => r.path.includes(txidOf(chargeId))).length;

  test("when the bank is slow and the claim is half gone after the first task, then the tasks not started are handed back due now, and the next pass does each of them once", async () => {
    // Arrange: five removals of charges the bank does not know (each one call or two, then done).
    const { account } = await server.newAccount();
    const scope = { accountId: account.id, livemode: true };
    const at = clock.now().toISOString();
    const ids = Array.from({ length: 5 }, () => newId("txn"));
    await server.store.transaction(async (tx) => {
      for (const id of ids) await tx.bankTasks.put(bankTask("remove", id, scope, at, at));
    });
    bank.setLatency(400);

    // Act: the first task's call is at the bank when the server's clock passes half the claim.
    const firstPass = server.domain.bankWork.runDue();
    for (let waited = 0; bank.requests().every((r) => !ids.some((id) => r.path.includes(txidOf(id)))); waited += 20) {
      if (waited > 10_000) throw new Error("the first task never reached the bank");
      await sleep(20);
    }
    clock.advance(31);
    const claimed = await firstPass;
    const handedBackAt = clock.now().toISOString();
    const left = await Promise.all(ids.map((id) => server.store.read.bankTasks.get(`remove:${id}`)));
    const callsBefore = ids.map(callsFor);
    bank.setLatency(0);
    const secondPass = await server.domain.bankWork.runDue();
    const afterSecond = await Promise.all(ids.map((id) => server.store.read.bankTasks.get(`remove:${id}`)));

    // Assert: one task done, four handed back untouched, due now; the next pass claims and does them.
    expect(claimed).toBe(5);
    const started = callsBefore.filter((n) => n > 0).length;
    expect(started).toBe(1);
    expect(left.filter((task) => task === null)).toHaveLength(1);
    const handedBack = left.filter((task) => task !== null);
    expect(handedBack).toHaveLength(4);
    for (const task of handedBack) {
      expect(task?.dueAt).toBe(handedBackAt);
      expect(task?.attempts).toBe(0);
    }
    expect(secondPass).toBe(4);
    expect(afterSecond).toEqual([null, null, null, null, null]);
    // Each task went to the bank in one pass only: the handed-back ones not in the first.
    for (const [index, id] of ids.entries()) {
      if (callsBefore[index] === 0) expect(callsFor(id)).toBeGreaterThan(0);
      else expect(callsFor(id)).toBe(callsBefore[index]);
    }
  });
}

for (const store of eachStore("task_claims"))
  store.describe(`bank task claims (${store.name})`, () => claimsSuite(store));
