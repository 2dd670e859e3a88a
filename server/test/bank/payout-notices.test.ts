import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { bankTransferIdOf } from "../../src/domain/balance/index.js";
import { bodyOf, byId } from "../harness.js";
import { bankLane, sleep, until } from "../support/bank-lanes.js";
import { eachStore } from "../support/stores.js";
import { expectEveryPayoutRequestValid } from "./payouts-support.js";

// Efí's notices of sent Pix (issue 36 §1: "the outcome arrives on the payer key's webhook"): a real
// server process (the built `npm start`) with its webhook listener (mutual TLS), against the fake
// bank in Efí's dialect, which calls the webhook registered for the paying key as each transfer
// ends. The payout job looks every 60 s here (PIX_BANK_RETRY_SECONDS, its longest), so a
// withdrawal that ends within seconds of the bank's settlement was ended by the notice, each
// transfer read back first (`GET /v2/gn/pix/enviados/id-envio/{idEnvio}`): the notice is a hint.
// A forged notice (the other outcome) ends it as the bank says; a lost one waits for the job or the
// operator's reconciliation.

type Withdrawal = components["schemas"]["Withdrawal"];

const adminToken = "adm_payout_notices_0123456789abcdef";
/** The connection's per-transfer limit here: R$ 100,00. */
const limitCents = 10_000;

for (const store of eachStore("payout-notices")) {
  store.describe(`Efí's notices of sent Pix on the ${store.name} store`, () => {
    const lane = bankLane({
      name: `payout notices ${store.name}`,
      store: store.name === "memory" ? "memory" : "postgres",
      processes: 1,
      adminToken,
      bank: { dialect: "efi", payouts: { mode: "pending" } },
      connection: { payoutLimitCents: limitCents },
      env: { PIX_BANK_RETRY_SECONDS: "60" },
    });
    afterAll(() => lane.close());
    const { api, operator } = lane;
    const bank = () => lane.bank();
    const book = () => bank().payouts as NonNullable<ReturnType<typeof bank>["payouts"]>;

    const fundedKey = (cents: number) => lane.withdrawingKey(cents);
    const available = async (key: string) => (await bodyOf(api(key).GET("/api/v1/balance"), 200)).availableCents;
    async function withdraw(key: string, amountCents: number): Promise<Withdrawal> {
      return bodyOf(
        api(key).POST("/api/v1/withdrawals", {
          params: { header: { "idempotency-key": randomUUID() } },
          body: { amountCents, pixKey: "recebedor@example.com", pixKeyType: "EMAIL" },
        }),
        201,
      );
    }
    const readW = (key: string, id: string) => bodyOf(api(key).GET("/api/v1/withdrawals/{id}", byId(id)), 200);
    const idsOf = (w: Withdrawal) => w.transfers.map((t) => bankTransferIdOf(t.id));
    const atBank = (w: Withdrawal) =>
      until(
        () => idsOf(w).every((id) => book().get(bank().customer.clientId, id) !== undefined),
        10_000,
        "every transfer at the bank",
      );
    /** The notices the bank sent naming transfer `id` (its callbacks' log). */
    const noticesOf = (id: string) =>
      bank()
        .callbacks()
        .filter((c) =>
          ((c.body as { pix?: { gnExtras?: { idEnvio?: string } }[] }).pix ?? []).some(
            (p) => p.gnExtras?.idEnvio === id,
          ),
        );
    /** When the server read transfer `id` back, as the bank logged it (ms). */
    const readsOf = (id: string) =>
      bank()
        .requests()
        .filter((r) => r.method === "GET" && r.path.endsWith(`/id-envio/${id}`))
        .map((r) => Date.parse(r.at));
    const ended = (key: string, w: Withdrawal, ms: number) =>
      until(async () => (await readW(key, w.id)).status !== "PENDING", ms, `withdrawal ${w.id} ended`);

    describe("one process", () => {
      // First: the job's next pass comes a minute after the process started; this test must end before it.
      test("when a notice is lost, then the withdrawal stays PENDING until the operator's reconciliation reads it back", async () => {
        const key = await fundedKey(20_000);
        const before = await available(key);
        const w = await withdraw(key, 4_000);
        await atBank(w);
        const [id] = idsOf(w) as [string];
        bank().faultCallbacks({ kind: "drop", count: 1 });
        book().settle(id, "pay");
        await until(() => noticesOf(id).length === 1, 5_000, "the dropped notice logged");
        expect(noticesOf(id)[0]?.fault).toBe("drop");
        await sleep(1_000);
        expect((await readW(key, w.id)).status).toBe("PENDING");
        const run = await bodyOf(operator().POST("/admin/v1/bank/reconciliations", { body: {} }), 200);
        expect(run.withdrawalTransfersSettled).toBe(1);
        expect(await readW(key, w.id)).toMatchObject({ status: "PAID", paidAmountCents: w.netAmountCents });
        expect(await available(key)).toBe(before - 4_000);
        bank().clearFaults();
      }, 60_000);

      test("when the bank settles each transfer of a withdrawal, then its notices end it within seconds, each transfer read back first, with one event", async () => {
        const key = await fundedKey(40_000);
        const fee = (await bodyOf(api(key).GET("/api/v1/balance"), 200)).withdrawFeeCents;
        const before = await available(key);
        const w = await withdraw(key, 15_000 + fee);
        expect(w.transfers.map((t) => t.amountCents)).toEqual([limitCents, 5_000]);
        await atBank(w);
        const [paid, failed] = idsOf(w) as [string, string];
        const settledAt = Date.now();
        book().settle(paid, "pay");
        book().settle(failed, "fail", "Conta do recebedor encerrada");
        // The job's next pass is a minute away: only the notices can end it this soon.
        await ended(key, w, 5_000);
        const done = await readW(key, w.id);
        expect(done).toMatchObject({
          status: "PARTIALLY_PAID",
          paidAmountCents: limitCents,
          returnedAmountCents: 5_000,
        });
        expect(done.transfers.map((t) => t.status)).toEqual(["PAID", "FAILED"]);
        expect(await available(key)).toBe(before - 15_000 - fee + 5_000);
        for (const id of [paid, failed]) {
          const notices = noticesOf(id);
          expect(notices.map((n) => [n.status, n.bodyValid, n.url.endsWith("/pix")])).toEqual([[200, true, true]]);
          // Read back after the notice, not trusted: a read of it at the bank after its settlement.
          expect(readsOf(id).some((at) => at >= settledAt - 5)).toBe(true);
        }
        const events = await bodyOf(api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } }), 200);
        const mine = events.data.filter((e) => (e.data.object as { id: string }).id === w.id).map((e) => e.type);
        expect(mine).toEqual(["withdrawal.partially_paid", "withdrawal.created"]);
        expectEveryPayoutRequestValid(bank(), /^\/v[23]\/gn\//);
      }, 60_000);

      test("when a notice is forged (paid, where the bank failed it), then the withdrawal ends as the bank says and all of it returns", async () => {
        const key = await fundedKey(20_000);
        const before = await available(key);
        const w = await withdraw(key, 6_000);
        await atBank(w);
        const [id] = idsOf(w) as [string];
        bank().faultCallbacks({ kind: "forge", count: 1 });
        book().settle(id, "fail", "Chave inexistente");
        await ended(key, w, 5_000);
        const forged = noticesOf(id);
        expect(forged.map((n) => [n.fault, n.status])).toEqual([["forge", 200]]);
        expect((forged[0]?.body as { pix: { status: string }[] }).pix[0]?.status).toBe("REALIZADO");
        expect(await readW(key, w.id)).toMatchObject({
          status: "FAILED",
          paidAmountCents: 0,
          returnedAmountCents: 6_000,
        });
        expect(await available(key)).toBe(before);
      }, 60_000);
    });
  });
}
