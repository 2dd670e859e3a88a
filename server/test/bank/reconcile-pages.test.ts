import { expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import type { ReceivedPix } from "../../src/domain/ports/pix-bank.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { PixBankDouble } from "../support/pix-bank-double.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The reconciler keeps a page of the bank's `GET /pix` in one store transaction (issue 35's speed:
// 10,000 missed payments within 60 s). Each end-to-end id is still kept once, its row written with
// its credit: a Pix listed twice in a page, a charge paid twice, a Pix a callback kept first, a
// callback racing the page, two runs at once. Through the operator's API and the callback's use
// case, on both stores, with the bank's test double.

type Transaction = components["schemas"]["Transaction"];

/** The double, listing every Pix of a page twice while `repeat` is on (a bank that repeats itself). */
class RepeatingBank extends PixBankDouble {
  repeat = false;
  override async listReceived(window: { from: string; to: string }, page: number) {
    const answer = await super.listReceived(window, page);
    return this.repeat ? { ...answer, items: [...answer.items, ...answer.items] } : answer;
  }
}

function pagesSuite(store: StoreUnderTest) {
  const bank = new RepeatingBank();
  bank.pageSize = 25;
  const server = serverOn(store, { bank: bank.access(300) });
  const now = () => server.clock.now().toISOString();
  const txidOf = (id: string) => `svc${id.replace("_", "")}`;

  /** An account whose production charges the tests pay at the bank, without callbacks. */
  const merchant = async () => {
    const key = (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
    const api = publicApi(server.baseUrl, { key });
    return {
      /** `count` production charges, each paid once at the bank. */
      async paid(count: number, amountCents = 1_500): Promise<{ charge: Transaction; pix: ReceivedPix }[]> {
        const out: { charge: Transaction; pix: ReceivedPix }[] = [];
        for (let i = 0; i < count; i++) {
          const res = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: amountCents + i }) });
          expectStatus(res, 201);
          expect(res.body.status).toBe("WAITING_PAYMENT");
          out.push({
            charge: res.body,
            pix: bank.pay({ txid: txidOf(res.body.id), amountCents: amountCents + i, paidAt: now() }),
          });
        }
        return out;
      },
      async status(id: string) {
        const res = await api.GET("/api/v1/transactions/{id}", byId(id));
        expectStatus(res, 200);
        return res.body.status;
      },
      async available() {
        const res = await api.GET("/api/v1/balance");
        expectStatus(res, 200);
        return res.body.availableCents + res.body.pendingCents;
      },
      /** The charges `transaction.paid` names, one entry per event. */
      async paidEvents() {
        const res = await api.GET("/api/v1/events", { params: { query: { limit: 100, type: "transaction.paid" } } });
        expectStatus(res, 200);
        return res.body.data.map((e) => (e.data.object as Transaction).id).sort();
      },
    };
  };
  const reconcile = async (from: string, to: string) => {
    const res = await operatorApi(server.baseUrl, { token: testAdminToken }).POST("/admin/v1/bank/reconciliations", {
      body: { from, to },
    });
    expectStatus(res, 200);
    return res.body;
  };
  const confirm = (ids: string[]) => server.domain.bankReceipts.confirmReceived(ids);
  /** Every paid charge is PAID once: one credit in the balance, one event, one row naming it. */
  const expectPaidOnce = async (shop: Awaited<ReturnType<typeof merchant>>, paid: { charge: Transaction }[]) => {
    for (const { charge } of paid) expect(await shop.status(charge.id)).toBe("PAID");
    expect(await shop.available()).toBe(paid.reduce((n, { charge }) => n + charge.netAmountCents, 0));
    expect(await shop.paidEvents()).toEqual(paid.map(({ charge }) => charge.id).sort());
    for (const { charge } of paid) {
      expect((await server.store.read.receivedPix.getCreditedTo(charge.id))?.outcome).toBe("CREDITED");
    }
  };

  test("when a page lists each Pix twice, pays a charge twice and holds a Pix a callback credited, then each end-to-end id is kept once: the second Pix to the charge unmatched, the callback's known", async () => {
    server.clock.advance(3_600);
    const from = now();
    const shop = await merchant();
    const paid = await shop.paid(6);
    const [first, twice] = paid as [(typeof paid)[0], (typeof paid)[0]];
    expect(await confirm([first.pix.endToEndId])).toEqual(["credited"]);
    const again = bank.pay({ txid: twice.pix.txid, amountCents: twice.charge.amountCents, paidAt: now() });
    const to = server.clock.advance(1).toISOString();
    bank.repeat = true;
    try {
      const run = await reconcile(from, to);
      // Seven Pix listed twice: five credited now, the callback's and each repeat known.
      expect(run).toMatchObject({ pages: 1, read: 14, credited: 5, unmatched: 1, known: 8, foreign: 0 });
    } finally {
      bank.repeat = false;
    }
    await expectPaidOnce(shop, paid);
    const held = await server.store.read.receivedPix.get(again.endToEndId);
    expect(held).toMatchObject({ outcome: "UNMATCHED", transactionId: null });
    expect(held?.reason).toContain("não aguardava pagamento");
    const credited = await Promise.all(
      paid.map(({ charge }) => server.store.read.receivedPix.getCreditedTo(charge.id)),
    );
    expect(credited.map((r) => r?.id)).toEqual(paid.map(({ pix }) => pix.endToEndId));

    const rerun = await reconcile(from, to);
    expect(rerun).toMatchObject({ read: 7, credited: 0, unmatched: 0, known: 7 });
    await expectPaidOnce(shop, paid);
  });

  test("when callbacks confirm the Pix while the run keeps their pages, then each is credited once, by one or the other", async () => {
    server.clock.advance(3_600);
    const from = now();
    const shop = await merchant();
    const paid = await shop.paid(40);
    const to = server.clock.advance(1).toISOString();
    const ids = paid.map(({ pix }) => pix.endToEndId);
    const [run, forward, backward] = await Promise.all([
      reconcile(from, to),
      confirm(ids),
      confirm([...ids].reverse()),
    ]);
    const byCallbacks = [...forward, ...backward].filter((outcome) => outcome === "credited").length;
    expect(run.credited + byCallbacks).toBe(paid.length);
    expect(run.read).toBe(paid.length);
    expect(run.credited + run.known).toBe(paid.length);
    await expectPaidOnce(shop, paid);
  });

  test("when two runs keep the same pages at once, then each Pix is credited once", async () => {
    server.clock.advance(3_600);
    const from = now();
    const shops = [await merchant(), await merchant()];
    const paid = [await shops[0]!.paid(30, 2_000), await shops[1]!.paid(30, 3_000)];
    const to = server.clock.advance(1).toISOString();
    const runs = await Promise.all([reconcile(from, to), reconcile(from, to), reconcile(from, to)]);
    expect(runs.reduce((n, run) => n + run.credited, 0)).toBe(60);
    for (const run of runs) expect(run).toMatchObject({ pages: 3, read: 60, unmatched: 0 });
    await expectPaidOnce(shops[0]!, paid[0]!);
    await expectPaidOnce(shops[1]!, paid[1]!);
  });
}

for (const store of eachStore("bank_reconcile_pages")) {
  store.describe(`the reconciler's pages on the ${store.name} store`, () => pagesSuite(store));
}
