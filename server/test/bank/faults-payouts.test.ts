import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { createCertificateAuthority } from "../../../fake-bank/src/certs.js";
import { bankTransferIdOf } from "../../src/domain/balance/index.js";
import { bodyOf, byId, expectStatus } from "../harness.js";
import { bankLane, type BankLane, until } from "../support/bank-lanes.js";
import { listensOn, type ServerProcess } from "../support/server-process.js";
import { eachStore } from "../support/stores.js";

// Issue 36 §3, the fault list of part 1 for withdrawals paid out by the bank (record 0056): real
// server processes (the built `npm start`) against the fake bank in Efí's dialect, through real
// TLS, mutual TLS and OAuth2, built like faults-bank.test.ts (lanes side by side, support/
// bank-lanes.ts). Lost and duplicated answers, duplicated and forged callbacks, an outage during a
// payout (5xx and dropped connections), tokens expiring in a burst, a process killed between the
// bank's answer and our write, and (PostgreSQL) two processes paying the same withdrawals. The
// fake bank leaves every transfer pending: the scenario settles them (some paid, some failed), then
// runs one reconciliation (`POST /admin/v1/bank/reconciliations`), and ends in the invariant
// (`expectPayoutsAgree`): no transfer sent to the bank twice, no balance below zero, and the ledger
// equals what the bank reports — each withdrawal's transfers as the bank settled them, its paid and
// returned amounts, and each account's balance its credited charges less what left it.

type Withdrawal = components["schemas"]["Withdrawal"];

const adminToken = "adm_payout_faults_0123456789abcdef";
/** The connection's per-transfer limit here: R$ 100,00. */
const limitCents = 10_000;
/** What each account is funded with, by one charge paid at the bank. */
const fundCents = 60_000;

/** The scenarios by lane: the longest ones (a kill and restart, the outage's breaker) apart. */
function lanesOf(processes: number): [string, string[]][] {
  return processes === 1
    ? [
        ["lane 1", ["lost", "callbacks"]],
        ["lane 2", ["down", "tokens"]],
      ]
    : [
        ["lane 1", ["lost", "callbacks"]],
        ["lane 2", ["down", "tokens"]],
        ["lane 3", ["killed"]],
        ["lane 4", ["two-processes", "slow-create"]],
      ];
}

for (const store of eachStore("payout-faults")) {
  const processes = store.name === "memory" ? 1 : 2;
  store.describe(`payout faults on the ${store.name} store, ${processes} server process(es)`, () => {
    const lanes = lanesOf(processes);
    const allLanes: BankLane[] = [];
    const declared = new Set<string>();
    beforeAll(() => {
      for (const key of declared) {
        expect(
          lanes.filter(([, keys]) => keys.includes(key)).map(([name]) => name),
          `the lanes of ${key}`,
        ).toHaveLength(1);
      }
    });
    afterAll(async () => {
      await Promise.all(allLanes.map((lane) => lane.close()));
    });

    for (const [name, picked] of lanes)
      describe(name, { concurrent: true }, () => {
        const lane = bankLane({
          name: `payout faults ${store.name} ${name}`,
          store: store.name === "memory" ? "memory" : "postgres",
          processes,
          adminToken,
          bank: { dialect: "efi", payouts: { mode: "pending" } },
          connection: { payoutLimitCents: limitCents },
        });
        allLanes.push(lane);
        const { api, operator, servers } = lane;
        const bank = () => lane.bank();
        const book = () => bank().payouts as NonNullable<ReturnType<typeof bank>["payouts"]>;
        /** The platform's balance at the bank when the lane started. */
        let bankStartCents = 0;
        beforeAll(() => {
          bankStartCents = book().balanceOf(bank().customer.clientId);
        });
        afterEach(() => {
          bank().clearFaults();
          bank().setLatency(0);
        });

        const scenario = (key: string, title: string, fn: () => Promise<void>, timeout = 60_000) => {
          declared.add(key);
          if (picked.includes(key)) test.sequential(title, fn, timeout);
        };

        /** A production key whose account holds `fundCents` less the charge's fee, paid at the bank. */
        const fundedKey = () => lane.withdrawingKey(fundCents);
        /**
         * Asks for a withdrawal on process `i`, with an idempotency key: a request that met a kept-alive
         * socket the server had just closed (`fetch failed`) is sent again, and never withdraws twice.
         */
        async function withdraw(key: string, amountCents: number, i = 0) {
          const ask = () =>
            api(key, i).POST("/api/v1/withdrawals", {
              params: { header: { "idempotency-key": idempotencyKey } },
              body: { amountCents, pixKey: "recebedor@example.com", pixKeyType: "EMAIL" },
            });
          const idempotencyKey = randomUUID();
          return ask().catch((error: unknown) => {
            if (error instanceof TypeError && error.message === "fetch failed") return ask();
            throw error;
          });
        }
        async function created(key: string, amountCents: number, i = 0): Promise<Withdrawal> {
          const res = await withdraw(key, amountCents, i);
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body as Withdrawal;
        }
        const readW = (key: string, id: string) => bodyOf(api(key).GET("/api/v1/withdrawals/{id}", byId(id)), 200);
        const idsOf = (w: Withdrawal) => w.transfers.map((t) => bankTransferIdOf(t.id));
        const record = (id: string) => book().get(bank().customer.clientId, id);
        /** Every transfer of `ws` at the bank (sent by a create's pass, the job, or a retry). */
        const allAtBank = (ws: Withdrawal[], ms = 20_000) =>
          until(() => ws.flatMap(idsOf).every((id) => record(id) !== undefined), ms, "every transfer at the bank");
        /** The bank settles every pending transfer of `ws`: each third one failed, the rest paid. */
        function settleAll(ws: Withdrawal[]): void {
          ws.flatMap(idsOf).forEach((id, n) => {
            if (record(id)?.state === "PENDING")
              book().settle(id, n % 3 === 2 ? "fail" : "pay", n % 3 === 2 ? "Conta do recebedor encerrada" : undefined);
          });
        }
        /** One operator reconciliation (of process `i`): answers how many transfers it settled. */
        async function reconcileOnce(i?: number): Promise<number> {
          const run = await bodyOf(operator(i).POST("/admin/v1/bank/reconciliations", { body: {} }), 200);
          return run.withdrawalTransfersSettled;
        }
        /**
         * One reconciliation as an operator asks it after an outage: a 503 (the connection's
         * breaker still open after the faults) is asked again after its Retry-After, at most five
         * times; the one that runs is returned.
         */
        async function reconcileOnceUp(i?: number): Promise<number> {
          for (let attempt = 1; attempt <= 5; attempt++) {
            const run = await operator(i).POST("/admin/v1/bank/reconciliations", { body: {} });
            if (run.status !== 503) {
              expectStatus(run, 200);
              return run.body.withdrawalTransfersSettled;
            }
            await new Promise((resolve) => setTimeout(resolve, Number(run.headers.get("retry-after") ?? 1) * 1_000));
          }
          throw new Error("the reconciliation answered 503 five times");
        }
        /** Our sends of transfer `id` (PUT) and reads (GET) at the bank, in order, as `METHOD status`. */
        const callsOf = (id: string) =>
          bank()
            .requests()
            .filter((r) => r.path.includes(`/pix/${id}`) || r.path.endsWith(`/id-envio/${id}`))
            .map((r) => `${r.method} ${r.fault === "lost" ? "lost" : r.status}`);

        async function withdrawalsOf(key: string): Promise<Withdrawal[]> {
          const page = await bodyOf(api(key).GET("/api/v1/withdrawals", { params: { query: { limit: 100 } } }), 200);
          return page.data.filter((w) => w.livemode);
        }
        async function eventsOf(key: string): Promise<{ type: string; id: string }[]> {
          const res = await bodyOf(api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } }), 200);
          return res.data.map((e) => ({ type: e.type, id: (e.data.object as { id: string }).id }));
        }

        /**
         * The invariant after every fault and one reconciliation: every transfer ended as the bank
         * settled it and reached the bank at most once (one accepted send, the same id on every
         * retry); each withdrawal's paid and returned amounts follow, with one end event; each
         * account's balance is its credited charges less what its withdrawals took (never below
         * zero); the platform's balance at the bank moved by what it paid; every request was valid.
         */
        async function expectPayoutsAgree(): Promise<void> {
          const known = new Set<string>();
          let paidAtBank = 0;
          for (const { key } of lane.accounts) {
            const ws = await withdrawalsOf(key);
            const events = await eventsOf(key);
            let taken = 0;
            for (const w of ws) {
              expect(w.status, `withdrawal ${w.id}`).not.toBe("PENDING");
              let paid = 0;
              let failed = 0;
              for (const t of w.transfers) {
                const id = bankTransferIdOf(t.id);
                known.add(id);
                const atBank = record(id);
                const accepted = bank()
                  .requests()
                  .filter(
                    (r) =>
                      r.method === "PUT" && r.path.endsWith(`/pix/${id}`) && (r.status === 201 || r.fault === "lost"),
                  );
                expect(accepted.length, `sends of ${id} the bank took: ${callsOf(id).join(", ")}`).toBeLessThanOrEqual(
                  1,
                );
                if (t.status === "PAID") {
                  expect(atBank?.state, `transfer ${id}`).toBe("PAID");
                  expect(t.endToEndId).toBe(atBank?.endToEndId);
                  expect(t.amountCents).toBe(atBank?.amount);
                  paid += t.amountCents;
                  paidAtBank += t.amountCents;
                } else {
                  expect(t.status, `transfer ${id}`).toBe("FAILED");
                  expect(atBank === undefined || atBank.state === "FAILED", `transfer ${id} at the bank`).toBe(true);
                  failed += t.amountCents;
                }
              }
              expect(w.paidAmountCents, `paid of ${w.id}`).toBe(paid);
              expect(w.returnedAmountCents, `returned of ${w.id}`).toBe(paid === 0 ? w.amountCents : failed);
              expect(w.status).toBe(paid === 0 ? "FAILED" : failed === 0 ? "PAID" : "PARTIALLY_PAID");
              const ends = events.filter((e) => e.id === w.id && e.type !== "withdrawal.created");
              expect(
                ends.map((e) => e.type),
                `end events of ${w.id}`,
              ).toEqual([`withdrawal.${w.status.toLowerCase()}`]);
              taken += w.amountCents - w.returnedAmountCents;
            }
            const charges = await bodyOf(
              api(key).GET("/api/v1/transactions", { params: { query: { limit: 100 } } }),
              200,
            );
            const credited = charges.data
              .filter((c) => c.livemode && c.paidAt !== null)
              .reduce((sum, c) => sum + c.amountCents - c.feeCents - c.refundedAmountCents, 0);
            const balance = await bodyOf(api(key).GET("/api/v1/balance"), 200);
            for (const part of [balance.availableCents, balance.pendingCents, balance.blockedCents])
              expect(part, "no balance below zero").toBeGreaterThanOrEqual(0);
            expect(balance.availableCents + balance.pendingCents + balance.blockedCents, `balance of ${key}`).toBe(
              credited - taken,
            );
          }
          // Nothing at the bank that is not one of our transfers, and the platform's money moved by what was paid.
          const strays = book()
            .list()
            .filter((p) => p.clientId === bank().customer.clientId && !known.has(p.id));
          expect(strays.map((p) => p.id)).toEqual([]);
          expect(book().balanceOf(bank().customer.clientId)).toBe(bankStartCents - paidAtBank);
          const invalid = bank()
            .requests()
            .filter((r) => !r.requestValid);
          expect(invalid, "every request we sent the bank was valid").toEqual([]);
        }

        /** Settles what the bank holds, runs one reconciliation, and checks the invariant. */
        async function settleReconcileAgree(ws: Withdrawal[], i?: number): Promise<void> {
          await allAtBank(ws);
          settleAll(ws);
          await reconcileOnce(i);
          await expectPayoutsAgree();
        }

        scenario(
          "lost",
          "when the bank's answers to sends are lost and its reads fail, then each transfer is read back by its id, never sent twice, and one reconciliation ends every withdrawal as the bank settled it",
          async () => {
            const key = await fundedKey();
            // The first send's answer lost, and the create pass's read of it answered 503 (one of
            // each: two failures in a row, short of the three that open the connection's breaker).
            book().loseAnswers(1);
            bank().faultCalls({ kind: "status", status: 503, count: 1, route: "^GET /v2/gn/pix/enviados/" });
            const ws = [await created(key, 15_000), await created(key, 6_000)];
            expect(ws.map((w) => w.transfers.length)).toEqual([2, 1]);
            await allAtBank(ws);
            bank().clearFaults();
            settleAll(ws);
            // One reconciliation settles whatever the job has not (the job may have read some by now).
            // The lost answers and failed reads open the breaker (3 in a row): asked once it closes.
            const settled = await reconcileOnceUp();
            expect(settled).toBeLessThanOrEqual(3);
            for (const w of ws) expect((await readW(key, w.id)).status).not.toBe("PENDING");
            // The faults happened: an answer lost, a read refused.
            const calls = ws.flatMap(idsOf).flatMap(callsOf);
            expect(calls, calls.join(", ")).toContain("PUT lost");
            expect(calls, calls.join(", ")).toContain("GET 503");
            // The lost ones were read back, not sent again: one PUT per id.
            for (const id of ws.flatMap(idsOf))
              expect(
                callsOf(id).filter((c) => c.startsWith("PUT")),
                callsOf(id).join(", "),
              ).toHaveLength(1);
            await expectPayoutsAgree();
          },
        );

        scenario(
          "callbacks",
          "when notices of a sent Pix arrive duplicated to every process, or forged, then the refused ones fail at TLS, none ends a withdrawal or credits anything, and the bank's word does",
          async () => {
            const key = await fundedKey();
            const before = await bodyOf(api(key).GET("/api/v1/balance"), 200);
            const w = await created(key, 8_000);
            await allAtBank([w]);
            const id = idsOf(w)[0] as string;
            const atBank = record(id);
            // Efí's notice of a sent Pix on the payer key's webhook, claiming it done; the bank has not settled it.
            const notice = {
              pix: [
                {
                  endToEndId: atBank?.endToEndId,
                  chave: "recebedor@example.com",
                  valor: (w.netAmountCents / 100).toFixed(2),
                  horario: new Date().toISOString(),
                  tipo: "SOLICITACAO",
                  status: "REALIZADO",
                  gnExtras: { idEnvio: id },
                },
              ],
            };
            const stranger = createCertificateAuthority("stranger").issueClient("stranger");
            for (const i of servers.keys()) {
              expect(await lane.callback(i, notice, null)).toBeInstanceOf(Error);
              expect(await lane.callback(i, notice, stranger)).toBeInstanceOf(Error);
            }
            const answers = await Promise.all(
              [...servers.keys()].flatMap((i) => [lane.callback(i, notice), lane.callback(i, notice)]),
            );
            expect(
              answers.every((a) => typeof a === "number" && a < 500),
              String(answers),
            ).toBe(true);
            // A pass of the job at least (5 s) after the notices: the bank still says pending.
            await reconcileOnce();
            expect((await readW(key, w.id)).status).toBe("PENDING");
            const after = await bodyOf(api(key).GET("/api/v1/balance"), 200);
            expect(after.availableCents).toBe(before.availableCents - 8_000);
            const held = await bodyOf(
              operator().GET("/admin/v1/bank/unmatched-receipts", { params: { query: { limit: 100 } } }),
              200,
            );
            expect(held.data.map((r) => r.endToEndId)).not.toContain(atBank?.endToEndId);
            // The bank fails it: one reconciliation returns the money (or the payout job, which reads
            // pending transfers back every second here, got there first; never both: one event).
            book().settle(id, "fail", "Chave inexistente");
            expect([0, 1]).toContain(await reconcileOnce());
            expect((await readW(key, w.id)).status).toBe("FAILED");
            expect((await eventsOf(key)).filter((e) => e.id === w.id && e.type === "withdrawal.failed")).toHaveLength(
              1,
            );
            expect((await bodyOf(api(key).GET("/api/v1/balance"), 200)).availableCents).toBe(before.availableCents);
            await expectPayoutsAgree();
          },
        );

        scenario(
          "down",
          "when the bank answers 503 and drops connections during payouts, then each transfer is retried with the same id after reading it back, the bank pays it once, and one reconciliation agrees",
          async () => {
            const key = await fundedKey();
            bank().faultCalls({ kind: "status", status: 503, count: 2, route: "^PUT /v3/gn/pix/" });
            bank().faultCalls({ kind: "reset", count: 2, route: "^PUT /v3/gn/pix/" });
            const ws = [await created(key, 12_000), await created(key, 5_000)];
            // The job (or the operator's run) sends what the outage left: the same ids.
            await until(
              async () => {
                if (ws.flatMap(idsOf).every((id) => record(id) !== undefined)) return true;
                await reconcileOnce().catch(() => 0);
                return false;
              },
              30_000,
              "every transfer at the bank after the outage",
            );
            for (const id of ws.flatMap(idsOf)) {
              const calls = callsOf(id);
              // Sent until the bank took it (201), each retry after a read that found it unknown (404).
              expect(
                calls.filter((c) => c === "PUT 201"),
                calls.join(", "),
              ).toHaveLength(1);
              calls.forEach((call, n) => {
                if (n > 0 && call.startsWith("PUT ") && !calls[n - 1]?.startsWith("PUT "))
                  expect(calls[n - 1], calls.join(", ")).toBe("GET 404");
              });
            }
            expect(
              ws
                .flatMap(idsOf)
                .flatMap(callsOf)
                .filter((c) => c !== "PUT 201" && c.startsWith("PUT")).length,
              "the outage met some sends",
            ).toBeGreaterThan(0);
            await settleReconcileAgree(ws);
          },
          90_000,
        );

        scenario(
          "tokens",
          "when every token expires during a burst of withdrawals, then the calls renew it and every transfer reaches the bank once",
          async () => {
            const keys = [await fundedKey(), await fundedKey()];
            const burst = keys.flatMap((key, k) =>
              [4_000, 13_000, 7_000].map((amount, n) => created(key, amount, k + n)),
            );
            bank().expireTokens();
            await new Promise((resolve) => setTimeout(resolve, 50));
            bank().expireTokens();
            const ws = await Promise.all(burst);
            await settleReconcileAgree(ws);
          },
        );

        if (processes === 2) {
          scenario(
            "killed",
            "when a process is killed between the bank's answer and our write, then the survivor's reads recover the transfer, sent once",
            async () => {
              const key = await fundedKey();
              // The send reaches the bank, which takes it only after the process is gone.
              bank().faultCalls({ kind: "delay", delayMs: 1_500, count: 1, route: "^PUT /v3/gn/pix/" });
              const w = await created(key, 7_000, 0);
              const id = idsOf(w)[0] as string;
              await until(
                () =>
                  bank()
                    .requests()
                    .some((r) => r.method === "PUT" && r.path.endsWith(`/pix/${id}`)),
                10_000,
                () =>
                  `the send at the bank: ${JSON.stringify(
                    bank()
                      .requests()
                      .slice(-5)
                      .map((r) => `${r.method} ${r.path} ${r.status}`),
                  )}`,
              );
              (servers[0] as ServerProcess).child.kill("SIGKILL");
              await until(() => !(servers[0] as ServerProcess).alive(), 5_000, "killed");
              await until(() => record(id) !== undefined, 10_000, "the transfer taken by the bank");
              try {
                // The survivor's job reads it back (it never wrote the send): its bank reference and state.
                book().settle(id, "pay");
                await until(
                  async () =>
                    (await bodyOf(lane.api(key, 1).GET("/api/v1/withdrawals/{id}", byId(w.id)), 200)).status === "PAID",
                  20_000,
                  "paid, as read back by the survivor's job",
                );
              } finally {
                await lane.start(0);
              }
              await reconcileOnce();
              await expectPayoutsAgree();
            },
            90_000,
          );

          scenario(
            "slow-create",
            "when the other process passes over a new withdrawal while its create's pass is about to send, then it leaves the transfer to that pass and it is sent once",
            async () => {
              const key = await fundedKey();
              // The create's pass (process 0) reads the bank's balance before sending: that read answers
              // late, after process 1's whole reconciliation below. The create answers after its bounded
              // wait (the lanes' 1 s), so of a 1.5 s delay half a second was left for that
              // reconciliation, which a loaded machine missed once; 5 s leaves four, under the lanes'
              // 8 s bank timeout.
              bank().faultCalls({ kind: "delay", delayMs: 5_000, count: 1, route: "^GET /gn/saldo" });
              const since = bank().requests().length;
              const balanceRead = () =>
                bank()
                  .requests()
                  .slice(since)
                  .find((r) => r.fault === "delay");
              const w = await created(key, 7_000, 0);
              const id = idsOf(w)[0] as string;
              await until(() => balanceRead() !== undefined, 10_000, "the create's balance read");
              // Meanwhile process 1 passes over it (its operator's run; its job's passes are the same):
              // the bank does not know the transfer yet (404).
              await reconcileOnce(1);
              expect(balanceRead()?.status, "the create's pass still waiting for the balance").toBe(0);
              // The delayed read answers; process 0's reconciliation waits for its create's pass to end.
              await until(() => balanceRead()?.status !== 0, 10_000, "the balance read answered");
              await reconcileOnce(0);
              expect(
                callsOf(id).filter((c) => c.startsWith("PUT")),
                callsOf(id).join(", "),
              ).toEqual(["PUT 201"]);
              expect(callsOf(id)[0], callsOf(id).join(", ")).toBe("GET 404");
              await settleReconcileAgree([w]);
            },
            60_000,
          );

          scenario(
            "two-processes",
            "when two processes take and pay the same account's withdrawals at once, then no balance goes below zero and each transfer is paid once",
            async () => {
              const key = await fundedKey();
              const { availableCents } = await bodyOf(api(key).GET("/api/v1/balance"), 200);
              // Some answers lost: those transfers are read back by whichever process passes first.
              book().loseAnswers(3);
              // More than the balance, asked of both processes at once: some refused, none overdrawn.
              const asked = await Promise.all(Array.from({ length: 8 }, (_, n) => withdraw(key, 14_000, n)));
              const ok = asked.filter((r) => r.status === 201).map((r) => r.body as Withdrawal);
              const refused = asked.filter((r) => r.status !== 201);
              expect(ok.length).toBe(Math.floor(availableCents / 14_000));
              for (const r of refused) expect(r.status).toBe(400);
              for (const r of refused) expect((r.body as { code: string }).code).toBe("INSUFFICIENT_BALANCE");
              // Both processes' operator runs pass over the same transfers at once.
              await allAtBank(ok);
              await Promise.all([reconcileOnce(0), reconcileOnce(1), reconcileOnce(0), reconcileOnce(1)]);
              settleAll(ok);
              const settled = await Promise.all([reconcileOnce(0), reconcileOnce(1)]);
              expect(settled.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(ok.flatMap(idsOf).length);
              await expectPayoutsAgree();
            },
            90_000,
          );
        }
      });

    test("when every fault is over, then no server process died and each still holds its port", async () => {
      for (const server of allLanes.flatMap((lane) => lane.servers)) {
        expect(server.alive()).toBe(true);
        expect(await listensOn(server.pid, server.port)).not.toBe(false);
        expect(server.output()).not.toMatch(/"level":(50|60)/);
      }
    });
  });
}
