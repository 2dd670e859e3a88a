import { request as httpsRequest } from "node:https";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { scopeLockKey } from "../../src/store/postgres/reads.js";
import { bodyOf, byId } from "../harness.js";
import { bankLane, type BankLane, sleep, until } from "../support/bank-lanes.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import type { ServerProcess } from "../support/server-process.js";
import { eachStore } from "../support/stores.js";

// Issue 36 §3, the fault list of part 1 for Pix Automático at the bank (record 0054): real server
// processes (the built `npm start`) against the fake bank through real TLS, mutual TLS and OAuth2,
// built like faults-bank.test.ts (lanes side by side, support/bank-lanes.ts). Lost, duplicated and
// forged `/webhookrec` and `/webhookcobr` callbacks; the bank down while a cycle charge is sent
// (`PUT /cobr`); and on PostgreSQL a process killed (SIGKILL) between the bank's answer and our
// write, and two processes racing one cycle. Each scenario ends with one reconciliation (the
// operator's, `POST /admin/v1/bank/reconciliations`) and the invariant (`expectRecurrencesAgree`):
// each recurrence registered once and in the bank's state; no cycle charge sent twice for a cycle
// (one cobr a cycle, one charge of ours a cycle); each charge's attempts the bank's, in order, a
// paid one with the bank's end-to-end id; one `transaction.paid` per paid charge, and the balance
// what the paid charges credited. The memory store lives in one process: there the kill and the
// race are left out (a killed memory process takes its store with it).

type Transaction = components["schemas"]["Transaction"];
type Recurrence = components["schemas"]["Recurrence"];

const adminToken = "adm_rec_faults_0123456789abcdef";

/** Today in Brasília (the recurrences' and the fake bank's calendar), `YYYY-MM-DD`. */
const brasiliaToday = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
const txidOf = (id: string) => `svc${id.replace("_", "")}`;

/** Ours as the bank's: a recurrence's status, an attempt's. */
const recurrenceMirror = {
  CRIADA: "CREATED",
  APROVADA: "APPROVED",
  REJEITADA: "REJECTED",
  EXPIRADA: "EXPIRED",
  CANCELADA: "CANCELLED",
} as const;
const attemptMirror: Record<string, string> = {
  AGENDADA: "SCHEDULED",
  SOLICITADA: "SCHEDULED",
  PAGA: "PAID",
  REJEITADA: "FAILED",
  CANCELADA: "CANCELLED",
};

/**
 * A read (or the reconciliation, which is safe to repeat) sent once more when the server had closed
 * the idle keep-alive socket it went out on: the fake bank runs in this process and compiles a
 * document validator at its first use of a route or callback, seconds of CPU on a loaded machine,
 * past the server's 5 s keep-alive.
 */
async function again<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== "UND_ERR_SOCKET" && code !== "ECONNRESET") throw error;
    return call();
  }
}

/** The scenarios by lane; on PostgreSQL the race and then the kill (the lane's last: a process is gone after it). */
function lanesOf(processes: number): [string, string[]][] {
  return processes === 1
    ? [
        ["lane 1", ["lost", "duplicated"]],
        ["lane 2", ["forged", "down"]],
      ]
    : [
        ["lane 1", ["lost", "duplicated"]],
        ["lane 2", ["forged", "down"]],
        ["lane 3", ["race", "killed"]],
      ];
}

for (const store of eachStore("recurrence-faults")) {
  const processes = store.name === "memory" ? 1 : 2;
  store.describe(`Pix Automático faults on the ${store.name} store, ${processes} server process(es)`, () => {
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
        const lane: BankLane = bankLane({
          name: "recurrence faults",
          store: store.name === "memory" ? "memory" : "postgres",
          processes,
          adminToken,
          env: {
            // Read when each process starts, once the lane's bank (and its customer) exists.
            get PIX_BANK_ACCOUNT() {
              return lane.bank().recurrences.accountOf(lane.bank().customer.clientId);
            },
          },
        });
        allLanes.push(lane);
        const bank = () => lane.bank();
        const scenario = (key: string, title: string, fn: () => Promise<void>) => {
          declared.add(key);
          if (picked.includes(key)) test.sequential(title, fn, 90_000);
        };

        beforeAll(async () => {
          // Pix Automático's webhooks registered with the connection.
          await until(
            () =>
              ["PUT /api/v2/webhookrec", "PUT /api/v2/webhookcobr"].every((route) =>
                bank()
                  .requests()
                  .some((r) => `${r.method} ${r.path}` === route && r.status === 200),
              ),
            45_000,
            "the recurrence webhooks registered",
          );
        }, 130_000);

        afterEach(() => {
          bank().clearFaults();
          bank().setLatency(0);
          bank().recurrences.setPayerFunds({ insufficient: false });
        });

        /** The public API on process `i`, by default the first alive (a scenario may have killed one). */
        const api = (key: string, i?: number) =>
          lane.api(
            key,
            i ??
              Math.max(
                0,
                lane.servers.findIndex((s) => s.alive()),
              ),
          );
        const readRecurrence = (key: string, id: string): Promise<Recurrence> =>
          again(() => bodyOf(api(key).GET("/api/v1/recurrences/{id}", byId(id)), 200));
        const read = (key: string, id: string): Promise<Transaction> =>
          again(() => bodyOf(api(key).GET("/api/v1/transactions/{id}", byId(id)), 200));
        const cobrOf = (chargeId: string) =>
          bank()
            .recurrences.list()
            .cobrs.find((c) => c.txid === txidOf(chargeId));

        /** The operator's reconciliation on process `i` (default the first alive): what the schedule runs every 10 s. */
        const reconcile = async (i?: number) =>
          again(() => bodyOf(lane.operator(i).POST("/admin/v1/bank/reconciliations", { body: {} }), 200));

        /** A production recurrence (journey 2, retries allowed) registered at the bank: ours and the bank's ids. */
        async function atBank(key: string, contract: string, i?: number) {
          const firstDate = dateAfter(brasiliaToday(), 4);
          const created = await bodyOf(
            api(key, i).POST("/api/v1/recurrences", {
              body: recurrenceBody({
                contractReference: contract,
                firstDate,
                amountCents: 3990,
                retryPolicy: "RETRY_3_IN_7_DAYS",
              }),
            }),
            201,
          );
          await until(async () => (await readRecurrence(key, created.id)).pix.copyPaste !== "", 30_000, "registered");
          const rec = bank()
            .recurrences.list()
            .recs.find((r) => r.vinculo.contrato === contract);
          expect(rec?.status).toBe("CRIADA");
          return { id: created.id, idRec: rec?.idRec as string, firstDate };
        }

        /** Approved by the payer and confirmed here (by its callback, or by a reconciliation when `lost`). */
        async function approved(key: string, r: { id: string; idRec: string }) {
          bank().recurrences.approve(r.idRec);
          await until(async () => (await readRecurrence(key, r.id)).status === "APPROVED", 30_000, "approved");
        }

        /** The cycle's charge sent to the bank: ours (WAITING_PAYMENT) and its cobr. */
        async function charged(key: string, r: { id: string; firstDate: string }, i?: number) {
          const charge = await bodyOf(
            api(key, i).POST("/api/v1/recurrences/{id}/charges", { ...byId(r.id), body: { dueDate: r.firstDate } }),
            201,
          );
          await until(() => cobrOf(charge.id) !== undefined, 30_000, "the cobr at the bank");
          return charge;
        }

        /** The date of the attempt the bank has scheduled for `chargeId`'s cobr. */
        const scheduledDate = (chargeId: string) =>
          cobrOf(chargeId)?.tentativas?.find((t) => t.status === "AGENDADA")?.dataLiquidacao as string;

        /** POSTs a callback to listener `i` as the bank would (its client certificate): the status, or null. */
        function callback(i: number, kind: "rec" | "cobr", body: unknown): Promise<number | null> {
          const certificate = bank().callbackCertificate();
          const payload = Buffer.from(JSON.stringify(body));
          return new Promise((resolve) => {
            const req = httpsRequest(
              {
                host: "127.0.0.1",
                port: lane.listenerPorts[i],
                path: `/webhook/${kind}`,
                method: "POST",
                cert: certificate.certPem,
                key: certificate.keyPem,
                rejectUnauthorized: false,
                agent: false,
                headers: { "content-type": "application/json", "content-length": payload.length },
                timeout: 5_000,
              },
              (res) => {
                res.resume();
                res.on("end", () => resolve(res.statusCode ?? null));
              },
            );
            req.on("error", () => resolve(null));
            req.on("timeout", () => req.destroy(new Error("timeout")));
            req.end(payload);
          });
        }

        /** How many of the bank's callbacks about `id` (an idRec or a txid) it dropped. */
        const dropped = (id: string) =>
          bank()
            .callbacks()
            .filter((c) => c.fault === "drop" && c.endToEndIds.includes(id)).length;

        /** The last callback the bank sent about `id` (an idRec or a txid): its body, to send again. */
        const lastCallbackAbout = (id: string) =>
          bank()
            .callbacks()
            .filter((c) => c.endToEndIds.includes(id))
            .at(-1)?.body;

        async function listAll<T>(path: "/api/v1/transactions" | "/api/v1/recurrences", key: string): Promise<T[]> {
          const all: T[] = [];
          let after: string | undefined;
          for (let page = 0; page < 20; page++) {
            const query = { limit: 100, ...(after ? { startingAfter: after } : {}) };
            const res = (await again(() => bodyOf(api(key).GET(path, { params: { query } }), 200))) as unknown as {
              data: (T & { id: string })[];
              hasMore: boolean;
            };
            all.push(...res.data);
            if (!res.hasMore || res.data.length === 0) break;
            after = res.data.at(-1)?.id;
          }
          return all;
        }

        /**
         * The invariant, after one reconciliation: ours equals the bank's, each cycle charged once at
         * the bank, each paid attempt credited once.
         */
        async function expectRecurrencesAgree(): Promise<void> {
          await reconcile();
          const { recs, cobrs } = bank().recurrences.list();
          for (const { key } of lane.accounts) {
            const recurrences = (await listAll<Recurrence>("/api/v1/recurrences", key)).filter((r) => r.livemode);
            const bankIdOf = new Map<string, string>();
            for (const r of recurrences) {
              const held = recs.filter((x) => x.vinculo.contrato === r.contractReference);
              expect(held, `${r.contractReference} registered once`).toHaveLength(1);
              const rec = held[0] as (typeof recs)[number];
              bankIdOf.set(r.id, rec.idRec);
              expect(r.status, `${r.contractReference} as the bank's ${rec.status}`).toBe(recurrenceMirror[rec.status]);
            }
            const charges = (await listAll<Transaction>("/api/v1/transactions", key)).filter(
              (t) => t.livemode && t.attempts !== undefined,
            );
            const cycles = charges.map((t) => `${t.recurrenceId} ${t.dueDate}`);
            expect(cycles.length, "one charge of ours a cycle").toBe(new Set(cycles).size);
            let credited = 0;
            for (const charge of charges) {
              const cobr = cobrOf(charge.id);
              expect(cobr, `the cobr of ${charge.id}`).toBeDefined();
              if (!cobr) continue;
              expect(cobr.idRec).toBe(bankIdOf.get(charge.recurrenceId as string));
              const live = cobrs.filter(
                (c) =>
                  c.idRec === cobr.idRec &&
                  c.calendario.dataDeVencimento === cobr.calendario.dataDeVencimento &&
                  c.status !== "REJEITADA" &&
                  c.status !== "CANCELADA",
              );
              expect(live.length, `cobrs of the cycle of ${charge.id}`).toBeLessThanOrEqual(1);
              const attempts = cobr.tentativas ?? [];
              expect(
                (charge.attempts ?? []).map((a) => [a.status, a.endToEndId, a.reasonCode]),
                `the attempts of ${charge.id}`,
              ).toEqual(
                attempts.map((t) => [
                  attemptMirror[t.status],
                  t.status === "PAGA" ? t.endToEndId : null,
                  t.status === "REJEITADA" ? (t.rejeicao?.codigo ?? null) : null,
                ]),
              );
              const paidAtBank = attempts.some((t) => t.status === "PAGA");
              expect(charge.status === "PAID", `${charge.id} paid as at the bank`).toBe(paidAtBank);
              if (paidAtBank) credited += charge.amountCents - charge.feeCents;
            }
            const events = await again(() =>
              bodyOf(api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } }), 200),
            );
            const paid = events.data
              .filter((e) => e.type === "transaction.paid")
              .map((e) => (e.data.object as { id: string }).id);
            expect(paid.length, "one transaction.paid per paid charge").toBe(new Set(paid).size);
            expect(new Set(paid)).toEqual(new Set(charges.filter((t) => t.status === "PAID").map((t) => t.id)));
            const balance = await again(() => bodyOf(api(key).GET("/api/v1/balance"), 200));
            expect(balance.availableCents + balance.pendingCents + balance.blockedCents, "the balance").toBe(credited);
          }
          const invalid = bank()
            .requests()
            .filter((r) => !r.requestValid || r.responseValid === false);
          expect(invalid, "every request to the bank, and its answer, within the document").toEqual([]);
          expect(
            bank()
              .callbacks()
              .every((c) => c.bodyValid),
          ).toBe(true);
        }

        scenario(
          "lost",
          "when the approval's and each attempt's callbacks are lost, then one reconciliation moves each once, the retry asked of the bank",
          async () => {
            const key = await lane.liveKey();
            const r = await atBank(key, "FALHAS-PERDIDO-01");
            bank().faultCallbacks({ kind: "drop", count: 1 });
            bank().recurrences.approve(r.idRec);
            await bank().settled();
            // (The scheduled reconciliation, every 10 s, may repair it first: the operator's is the same run.)
            expect(dropped(r.idRec)).toBe(1);
            await reconcile();
            expect((await readRecurrence(key, r.id)).status).toBe("APPROVED");

            const charge = await charged(key, r);
            // The first attempt refused for want of balance, its callback lost.
            bank().recurrences.setPayerFunds({ insufficient: true });
            bank().faultCallbacks({ kind: "drop", count: 1 });
            expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
            await bank().settled();
            await reconcile();
            // Ours failed with AM04, and the retry our policy scheduled is asked of the bank.
            expect(cobrOf(charge.id)?.tentativas?.map((t) => t.status)).toEqual(["REJEITADA", "AGENDADA"]);
            // The retry paid, its callback lost too.
            bank().recurrences.setPayerFunds({ insufficient: false });
            bank().faultCallbacks({ kind: "drop", count: 1 });
            expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
            await bank().settled();
            expect(dropped(txidOf(charge.id))).toBe(2);
            await expectRecurrencesAgree();
            expect((await read(key, charge.id)).status).toBe("PAID");
          },
        );

        scenario(
          "duplicated",
          "when each callback comes twice, and again to every process at once, then each move happens once",
          async () => {
            const key = await lane.liveKey();
            const r = await atBank(key, "FALHAS-DUPLO-01");
            bank().faultCallbacks({ kind: "duplicate", count: 1 });
            await approved(key, r);
            const charge = await charged(key, r);
            bank().faultCallbacks({ kind: "duplicate", count: 1 });
            expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
            await bank().settled();
            await until(async () => (await read(key, charge.id)).status === "PAID", 30_000, "paid");
            // The same callbacks again, to every listener at once.
            const recBody = lastCallbackAbout(r.idRec);
            const cobrBody = lastCallbackAbout(txidOf(charge.id));
            const answers = await Promise.all(
              lane.servers.flatMap((_, i) => [callback(i, "rec", recBody), callback(i, "cobr", cobrBody)]),
            );
            expect(answers.every((a) => a === 200 || a === 204)).toBe(true);
            await expectRecurrencesAgree();
          },
        );

        scenario(
          "forged",
          "when callbacks lie about a recurrence and a debit, or name ones not ours, then only what the bank confirms moves",
          async () => {
            const key = await lane.liveKey();
            const r = await atBank(key, "FALHAS-FORJADO-01");
            // The bank's own callback forged (it says cancelled by the payer): the read says approved.
            bank().faultCallbacks({ kind: "forge", count: 1 });
            await approved(key, r);
            const charge = await charged(key, r);
            const cobr = cobrOf(charge.id);
            const at = new Date().toISOString();
            // A forger says the cycle was paid and the recurrence cancelled; and names a txid and an idRec nobody has.
            const paidLie = {
              cobsr: [
                {
                  idRec: r.idRec,
                  txid: txidOf(charge.id),
                  status: "CONCLUIDA",
                  atualizacao: [...(cobr?.atualizacao ?? []), { status: "CONCLUIDA", data: at }],
                  tentativas: (cobr?.tentativas ?? []).map((t) => ({
                    ...t,
                    status: "PAGA",
                    atualizacao: [...t.atualizacao, { status: "PAGA", data: at }],
                  })),
                },
              ],
            };
            const cancelledLie = {
              recs: [
                {
                  idRec: r.idRec,
                  status: "CANCELADA",
                  atualizacao: [
                    { status: "CRIADA", data: at },
                    { status: "CANCELADA", data: at },
                  ],
                  encerramento: {
                    cancelamento: { solicitante: "USUARIO_PAGADOR", codigo: "SLDB", descricao: "Forjado" },
                  },
                },
              ],
            };
            const strangers = {
              recs: [{ ...cancelledLie.recs[0], idRec: "RR9999999920260101Forged00001" }],
            };
            const before = bank().requests().length;
            const readsSince = () =>
              bank()
                .requests()
                .slice(before)
                .map((q) => `${q.method} ${q.path}`);
            for (const [kind, body] of [
              ["cobr", paidLie],
              ["rec", cancelledLie],
              ["rec", strangers],
              ["cobr", { cobsr: [{ ...paidLie.cobsr[0], txid: "svctxnForgedForgedForged0001" }] }],
            ] as const) {
              expect(await callback(0, kind, body), JSON.stringify(body)).toBe(200);
            }
            // Each of ours read at the bank; nothing not ours read.
            await until(
              () =>
                readsSince().some((q) => q.startsWith(`GET /api/v2/cobr/${txidOf(charge.id)}`)) &&
                readsSince().some((q) => q.startsWith(`GET /api/v2/rec/${r.idRec}`)),
              20_000,
              "the lies read at the bank",
            );
            await sleep(300);
            expect(readsSince().some((q) => q.includes("Forged"))).toBe(false);
            expect((await read(key, charge.id)).status).toBe("WAITING_PAYMENT");
            expect((await readRecurrence(key, r.id)).status).toBe("APPROVED");
            // The real debit, then: paid by its callback.
            expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
            await until(async () => (await read(key, charge.id)).status === "PAID", 30_000, "paid");
            await expectRecurrencesAgree();
          },
        );

        scenario(
          "down",
          "when the bank is down while a cycle charge is sent, then it is sent again with the same txid once the bank answers, one cobr for the cycle",
          async () => {
            const key = await lane.liveKey();
            const r = await atBank(key, "FALHAS-FORA-01");
            await approved(key, r);
            // The first PUT answered 503, the next one never answered (the bounded wait ends it).
            bank().faultCalls({ kind: "status", status: 503, count: 1, route: "^PUT /cobr/" });
            bank().faultCalls({ kind: "timeout", count: 1, route: "^PUT /cobr/" });
            const charge = await bodyOf(
              api(key).POST("/api/v1/recurrences/{id}/charges", { ...byId(r.id), body: { dueDate: r.firstDate } }),
              201,
            );
            expect(charge.status).toBe("WAITING_PAYMENT");
            await until(() => cobrOf(charge.id) !== undefined, 40_000, "the cobr once the bank answers");
            const puts = bank()
              .requests()
              .filter((q) => q.method === "PUT" && q.path.includes(txidOf(charge.id)));
            expect(puts.map((q) => q.fault).slice(0, 2)).toEqual(["status", "timeout"]);
            expect(puts.filter((q) => q.fault === undefined).map((q) => q.status)).toEqual([201]);
            expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
            await until(async () => (await read(key, charge.id)).status === "PAID", 30_000, "paid");
            await expectRecurrencesAgree();
          },
        );

        // Two processes on one store: PostgreSQL only.
        if (processes > 1) {
          scenario(
            "race",
            "when two processes race one cycle (its charge, its callbacks, their reconciliations), then it is sent once, each attempt credited once",
            async () => {
              const key = await lane.liveKey();
              const r = await atBank(key, "FALHAS-CORRIDA-01");
              await approved(key, r);
              // Both processes asked for the cycle's charge at once, twice each: one charge, one cobr.
              const asked = await Promise.all(
                [0, 1, 0, 1].map((i) =>
                  api(key, i).POST("/api/v1/recurrences/{id}/charges", {
                    ...byId(r.id),
                    body: { dueDate: r.firstDate },
                  }),
                ),
              );
              expect(asked.filter((a) => a.status === 201)).toHaveLength(1);
              expect(asked.every((a) => a.status === 201 || a.status === 400)).toBe(true);
              const charge = asked.find((a) => a.status === 201)?.body as Transaction;
              await until(() => cobrOf(charge.id) !== undefined, 30_000, "the cobr at the bank");
              // Refused for want of balance; the callback to both processes at once, both reconciling:
              // one retry asked of the bank.
              bank().recurrences.setPayerFunds({ insufficient: true });
              bank().faultCallbacks({ kind: "drop", count: 1 });
              expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
              await bank().settled();
              const refused = {
                cobsr: [
                  {
                    idRec: r.idRec,
                    txid: txidOf(charge.id),
                    status: "ATIVA",
                    atualizacao: cobrOf(charge.id)?.atualizacao,
                    tentativas: cobrOf(charge.id)?.tentativas,
                  },
                ],
              };
              await Promise.all([
                callback(0, "cobr", refused),
                callback(1, "cobr", refused),
                reconcile(0),
                reconcile(1),
              ]);
              await until(() => cobrOf(charge.id)?.tentativas?.length === 2, 30_000, "the retry at the bank");
              const retries = bank()
                .requests()
                .filter((q) => q.method === "POST" && q.path.includes(`/cobr/${txidOf(charge.id)}/retentativa/`));
              expect(retries.filter((q) => q.status === 201)).toHaveLength(1);
              // The retry paid: the callback twice, to both, and both reconciling at once.
              bank().recurrences.setPayerFunds({ insufficient: false });
              bank().faultCallbacks({ kind: "duplicate", count: 1 });
              expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
              await bank().settled();
              const paid = lastCallbackAbout(txidOf(charge.id));
              await Promise.all([callback(0, "cobr", paid), callback(1, "cobr", paid), reconcile(0), reconcile(1)]);
              await expectRecurrencesAgree();
              expect((await read(key, charge.id)).status).toBe("PAID");
            },
          );

          scenario(
            "killed",
            "when a process is killed between the bank's answer and its write, then the survivor's reconciliation writes it once",
            async () => {
              const key = await lane.liveKey();
              const r = await atBank(key, "FALHAS-MORTO-01");
              await approved(key, r);
              const charge = await charged(key, r);
              const account = lane.accounts.at(-1) as { id: string };
              const victim = lane.servers[0] as ServerProcess;
              // The scope's lock held here: the process that reads the debit blocks on its write.
              const holder = new pg.Client({ connectionString: lane.databaseUrl() as string });
              await holder.connect();
              try {
                await holder.query("SELECT pg_advisory_lock($1::bigint)", [
                  scopeLockKey({ accountId: account.id, livemode: true }),
                ]);
                const before = bank().requests().length;
                expect(bank().recurrences.runDate(scheduledDate(charge.id))).toBe(1);
                // The callback reaches the first process, which reads the cobr (PAGA) and waits for the lock.
                await until(
                  () =>
                    bank()
                      .requests()
                      .slice(before)
                      .some(
                        (q) => q.method === "GET" && q.path.includes(`/cobr/${txidOf(charge.id)}`) && q.status === 200,
                      ),
                  30_000,
                  "the debit read back",
                );
                await sleep(200);
                victim.child.kill("SIGKILL");
                await until(() => !victim.alive(), 5_000, "killed");
              } finally {
                await holder.end();
              }
              await expectRecurrencesAgree();
              expect((await read(key, charge.id)).status).toBe("PAID");
            },
          );
        }
      });
  });
}
