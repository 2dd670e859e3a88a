/**
 * The withdrawals section's measurements (issue 36 §3; bench/sections/withdrawals.ts starts this
 * file in a process of its own): the built server as deployed, connected through the operator API
 * to the fake bank in Efí's dialect answering every call after a fixed 50 ms, on each store the
 * parent names. Ten accounts, each funded by a production charge paid at the bank, make 100
 * withdrawals at once (ten each); the bank pays every transfer as soon as it takes it and tells it
 * on the paying key's webhook (Efí's notice), which ends each withdrawal once read back (the payout
 * job, every 5 s, reads what a notice missed). A warm-up round, 20 one at a time, then five
 * measured rounds of 100 (one with BENCH_WITHDRAWALS_QUICK), the bank keeping its notices'
 * connections as a webhook sender's pool does; then one more round with a new connection per notice,
 * shown beside. Prints one line `WITHDRAWALS-RESULT <json>` (a `WithdrawalsResult` per store).
 *
 * Judged: the server's own CPU per transfer over a measured round of 100 (create, send, read
 * back, end, the events, notices and request logs they cause), the bench's own polling taken off
 * (its lists, counted, at the CPU per list measured after the rounds), the median of the last
 * three rounds (the first two settle the process; one round's figure moves by a tenth or more on
 * a shared host): the work the server does
 * per transfer, which 100 at once on one core cannot hide and a queue does not inflate
 * (docs/decisions/0059-withdrawals-judged-by-cpu-per-transfer.md). Shown beside it: ours as a
 * latency, from the withdrawal's request to its transfer's send arriving at the bank, less the
 * bank's time for the one call the pass makes before it (the platform's balance, 50 ms), with 100
 * at once (a queue: about the round's CPU over one core) and one at a time.
 *
 * Environment: BENCH_WITHDRAWALS_STORES (JSON `[{ name, databaseUrl? }]`), BENCH_WITHDRAWALS_QUICK
 * (`1`), BENCH_SERVER_ENTRY (the run's build, bench/lib/server.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeBank, type FakeBank } from "../../fake-bank/src/bank.js";
import { createCertificateAuthority } from "../../fake-bank/src/certs.js";
import { median, percentile, spread } from "../lib/load.js";
import { cpuMsOf, cpuMsOfStat, pin, pool, type Running } from "../lib/process.js";
import { json, startServerAtBank } from "../lib/at-bank.js";

export interface WithdrawalsResult {
  store: string;
  /** Rounds of 100 measured (5; 1 with --quick); the first `settlingRounds` are not judged. */
  rounds: number;
  /** The withdrawals made in them (201 each), and their transfers. */
  withdrawals: number;
  transfers: number;
  /** p50 over the transfers of ours (see the top of this file), ms. */
  oursP50Ms: number;
  oursP95Ms: number;
  /** The same, one withdrawal at a time (20 of them): no queue. */
  aloneP50Ms: number;
  /** p50 of the withdrawals' requests (201), ms. */
  createP50Ms: number;
  /** From the first request to the last withdrawal PAID, seconds (the job reads every 5 s). */
  finishedSeconds: number;
  /** The server's CPU from the first request to the last PAID, per transfer, the polling included. */
  serverCpuMsPerTransfer: number;
  /** The same less the bench's polling (`polls` lists at `cpuMsPerPoll` each): judged, the median round's. */
  oursCpuMsPerTransfer: number;
  /** That figure for each measured round, in order; the first `settlingRounds` are not judged. */
  oursCpuMsPerTransferRounds: number[];
  settlingRounds: number;
  /** The lists the bench made in the measured round to see the withdrawals PAID. */
  polls: number;
  /** The server's CPU per such list, measured after the round (50 lists, a request-log flush included). */
  cpuMsPerPoll: number;
  /**
   * Shown, not judged: `oursCpuMsPerTransfer` for one more round in which the bank opened a new
   * connection for each notice (a full mutual-TLS handshake on the listener each) instead of
   * keeping its connections as the judged rounds' bank does.
   */
  newConnectionsCpuMsPerTransfer: number;
  /** Calls to the bank per transfer over the same span (balance, send, reads). */
  bankCallsPerTransfer: number;
  statuses: Record<string, number>;
  /** Every account's balance is its charge's net amount less its withdrawals; the bank paid each transfer once. */
  balancesRight: boolean;
  paidOnceAtBank: boolean;
  loadAverage: number;
}

const quick = process.env.BENCH_WITHDRAWALS_QUICK === "1";
const adminToken = `adm_bench_${randomBytes(16).toString("hex")}`;
const accounts = 10;
const perAccount = 10;
const amountCents = 2_000;
const bankLatencyMs = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Rounds of 100 measured, one after another (BENCH_WITHDRAWALS_ROUNDS to measure more). The figure
 * falls over the first few hundred withdrawals a process serves (V8 optimising the path, each pooled
 * connection preparing its statements: 7.1 · 5.9 · 5.1 · 5.0 · 4.9 · 5.4 · 4.9 ms on PostgreSQL in
 * seven rounds), so the first `settlingRounds` are shown, not judged: the judged figure is the
 * median of the rest, a process that has served a few hundred withdrawals, as a deployed one has.
 */
const measuredRounds = Number(process.env.BENCH_WITHDRAWALS_ROUNDS ?? (quick ? 1 : 5));
const settlingRounds = quick ? 0 : Math.min(2, measuredRounds - 1);

async function measureStore(
  store: { name: string; databaseUrl?: string },
  files: { listenerCert: string; listenerKey: string },
  listenerCaPem: string,
): Promise<WithdrawalsResult> {
  const bank: FakeBank = await startFakeBank({
    dialect: "efi",
    latencyMs: bankLatencyMs,
    webhookCa: listenerCaPem,
    payouts: { mode: "pay", delayMs: 0 },
  });
  let server: Running | undefined;
  try {
    const connected = await startServerAtBank({
      bank,
      dialect: "efi",
      adminToken,
      files,
      databaseUrl: store.databaseUrl,
      // BENCH_WITHDRAWALS_SERVER_FLAGS: node flags for the server beside `npm start`'s (`--cpu-prof` to profile it).
      flags: process.env.BENCH_WITHDRAWALS_SERVER_FLAGS,
    });
    server = connected.server;
    const { admin } = connected;
    const base = server.baseUrl;
    const api = (key: string, method: string, path: string, body?: unknown) =>
      fetch(`${base}/api/v1${path}`, {
        method,
        headers: { "x-api-key": key, "content-type": "application/json", ...spread() },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });

    // Ten accounts, each funded by a production charge the bank's payer pays (its callback credits it).
    const funded = await pool(accounts, accounts, async (n) => {
      const account = await json(
        await admin("POST", "/accounts", {
          name: `Loja de Saques ${n}`,
          ownerEmail: `${randomUUID().slice(0, 8)}@loja.example.com.br`,
          verified: true,
          releasePeriodDays: 0,
        }),
        201,
        "account",
      );
      const key = (
        await json(
          await admin("POST", `/accounts/${String(account.id)}/api-keys`, {
            name: "bench",
            mode: "production",
            permissions: [
              "charges:write",
              "transactions:read",
              "balance:read",
              "withdrawals:read",
              "withdrawals:write",
            ],
            dailyWithdrawLimitCents: null,
          }),
          201,
          "live key",
        )
      ).secret as string;
      const charge = await json(
        await api(key, "POST", "/charges/pix", {
          // The warm-up round, the 20 one at a time and the measured rounds, with room to spare.
          amountCents: perAccount * amountCents * (measuredRounds + 3),
          description: "Venda para os saques",
          customer: {
            name: "Maria da Silva",
            email: "maria@example.com",
            phone: "11987654321",
            documentType: "CPF",
            document: "52998224725",
          },
        }),
        201,
        "charge",
      );
      let read = charge as { id: string; status: string; pix: { copyPaste: string } };
      while (read.status === "PENDING") {
        await sleep(100);
        read = (await json(await api(key, "GET", `/transactions/${read.id}`), 200, "charge")) as typeof read;
      }
      bank.pay(read.pix.copyPaste);
      for (;;) {
        const balance = await json(await api(key, "GET", "/balance"), 200, "balance");
        if ((balance.availableCents as number) > 0) return { key, fundedCents: balance.availableCents as number };
        await sleep(100);
      }
    });

    /** Every list the rounds made to see their withdrawals PAID. */
    let polls = 0;
    const poll = async (key: string) => {
      polls++;
      return json(await api(key, "GET", "/withdrawals?limit=100"), 200, "withdrawals");
    };
    /** 100 withdrawals at once (ten from each account), until every one is PAID. */
    const round = async (count = accounts * perAccount, width = count) => {
      const made = await pool(count, width, async (i) => {
        const { key } = funded[i % accounts] as { key: string };
        const t0 = performance.now();
        const sentAt = Date.now();
        const res = await api(key, "POST", "/withdrawals", {
          amountCents,
          pixKey: "recebedor@example.com",
          pixKeyType: "EMAIL",
        });
        const ms = performance.now() - t0;
        const text = await res.text();
        if (res.status !== 201) return { key, status: res.status, ms, sentAt, id: "", transfers: [] as string[] };
        const body = JSON.parse(text) as { id: string; transfers: { id: string }[] };
        const transfers = body.transfers.map((t) => t.id.replace("_", ""));
        // One at a time: the next request waits until this one's transfers reached the bank, so
        // no two passes overlap (they would share one balance read).
        const sent = (id: string) => bank.requests().some((r) => r.method === "PUT" && r.path.endsWith(`/pix/${id}`));
        for (let waited = 0; width === 1 && !transfers.every(sent) && waited < 10_000; waited += 2) await sleep(2);
        return { key, status: 201, ms, sentAt, id: body.id, transfers };
      });
      // Until every withdrawal is PAID (the job's pass every 5 s reads each transfer back, oldest
      // first): once a second, the accounts in turn, each listed until its withdrawals are all PAID
      // and then left, so the polling (about one list a second, not one per account) is not what
      // the server's CPU measures.
      const deadline = Date.now() + (quick ? 60_000 : 120_000);
      const waiting = funded
        .map(({ key }) => ({
          key,
          ids: new Set(made.filter((m) => m.key === key && m.status === 201).map((m) => m.id)),
        }))
        .filter((account) => account.ids.size > 0);
      while (waiting.length > 0) {
        await sleep(1_000);
        while (waiting.length > 0) {
          const { key, ids } = waiting[0] as (typeof waiting)[number];
          const page = await poll(key);
          const data = page.data as { id: string; status: string }[];
          if (data.some((w) => ids.has(w.id) && w.status !== "PAID")) break;
          waiting.shift();
        }
        if (waiting.length > 0 && Date.now() > deadline) {
          throw new Error(`withdrawals not PAID in time: ${waiting.length} accounts left`);
        }
      }
      return made;
    };
    // A first round opens the connections to the bank (mutual TLS) and warms the server; the second is measured.
    const warm = await round();
    // One at a time (20): what the server adds per transfer with no queue.
    const single = await round(20, 1);
    // Alone, the balance read just before the send is the one this pass waited for: the part of its
    // time at the bank (the request log's `ms`, latency, validation and the bank's own load
    // included) after the withdrawal's request began is taken off. A read begun before it (the
    // payout job's, shared by the pass) counts only from the request on, not whole.
    const alone = single.flatMap((m) =>
      m.transfers.flatMap((id) => {
        const log = bank.requests();
        const at = log.findIndex((r) => r.method === "PUT" && r.path.endsWith(`/pix/${id}`));
        const send = log[at];
        const balance = log
          .slice(0, Math.max(0, at))
          .reverse()
          .find((r) => r.method === "GET" && r.path.includes("/saldo"));
        if (!send || !balance) return [];
        const balanceAt = Date.parse(balance.at);
        const waited = Math.max(0, balanceAt + (balance.ms ?? bankLatencyMs) - Math.max(balanceAt, m.sentAt));
        return [Date.parse(send.at) - m.sentAt - waited];
      }),
    );
    const logBefore = bank.requests().length;
    // The measured round's span on the monotonic clock a `--cpu-prof` profile's timestamps use (µs).
    // and the server's CPU by thread (main, V8's GC helpers, libuv's pool), ms.
    const threads = (pid: number) => {
      const out: Record<string, number> = {};
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        out[`${name}#${task}`] = cpuMsOfStat(stat);
      }
      return out;
    };
    const threadsBefore = threads(server.pid);
    const mark = (what: string, extra = "") => {
      // Only beside a profile (node flags given): the bench's own output stays its table.
      if (process.env.BENCH_WITHDRAWALS_SERVER_FLAGS) {
        console.error(`WITHDRAWALS-MARK ${store.name} ${what} ${process.hrtime.bigint() / 1000n} ${extra}`);
      }
    };
    mark("start");
    /** Each measured round: its withdrawals, the server's CPU over it, its lists, its length. */
    const measured: { made: Awaited<ReturnType<typeof round>>; cpuMs: number; polls: number; seconds: number }[] = [];
    for (let r = 0; r < measuredRounds; r++) {
      const cpuBefore = cpuMsOf(server.pid);
      const pollsBefore = polls;
      const started = performance.now();
      const roundMade = await round();
      measured.push({
        made: roundMade,
        cpuMs: cpuMsOf(server.pid) - cpuBefore,
        polls: polls - pollsBefore,
        seconds: (performance.now() - started) / 1000,
      });
    }
    const made = measured.flatMap((m) => m.made);
    /** The rounds judged: the process settled (see `settlingRounds`). */
    const judged = measured.slice(settlingRounds);
    const roundPolls = median(judged.map((m) => m.polls));
    const statuses: Record<string, number> = {};
    for (const m of made) statuses[m.status] = (statuses[m.status] ?? 0) + 1;
    const ok = made.filter((m) => m.status === 201);
    const finishedSeconds = median(judged.map((m) => m.seconds));
    const threadsAfter = threads(server.pid);
    mark(
      "end",
      Object.entries(threadsAfter)
        .map(([name, ms]) => [name, ms - (threadsBefore[name] ?? 0)] as const)
        .filter(([, ms]) => ms > 0)
        .map(([name, ms]) => `${name}=${ms}`)
        .join(" "),
    );
    const log = bank.requests().slice(logBefore);
    // The polling's CPU: the same list 50 times, one after another as the round's were, each
    // account in turn, and a second for the request logs' flush of them (every second), less a
    // second of the server left alone (its jobs' ticks).
    const settle = 1_200;
    const idleFrom = cpuMsOf(server.pid);
    await sleep(settle);
    const idleMs = cpuMsOf(server.pid) - idleFrom;
    const calibration = 50;
    const listsFrom = cpuMsOf(server.pid);
    for (let i = 0; i < calibration; i++) await poll((funded[i % accounts] as { key: string }).key);
    await sleep(settle);
    const cpuMsPerPoll = Math.max(0, cpuMsOf(server.pid) - listsFrom - idleMs) / calibration;
    // One more round, the bank opening a connection for each notice: what a sender that keeps no
    // connection costs the listener (a full handshake, its RSA signature, per transfer).
    bank.setCallbackConnections("new");
    const newCpuFrom = cpuMsOf(server.pid);
    const newPollsFrom = polls;
    const newMade = await round();
    const newCpuMs = cpuMsOf(server.pid) - newCpuFrom;
    const newPolls = polls - newPollsFrom;
    bank.setCallbackConnections("kept");
    const transfers = ok.flatMap((m) => m.transfers.map((id) => ({ id, sentAt: m.sentAt })));
    /** The transfers a round's withdrawals were paid in. */
    const transfersOf = (round: typeof made) =>
      round.filter((m) => m.status === 201).reduce((sum, m) => sum + m.transfers.length, 0);
    /** Judged, each round: its CPU less its lists at the calibrated CPU per list, per transfer. */
    const oursByRound = measured.map(
      (m) => Math.max(0, m.cpuMs - m.polls * cpuMsPerPoll) / Math.max(1, transfersOf(m.made)),
    );
    const ours = transfers.flatMap(({ id, sentAt }) => {
      const send = log.find((r) => r.method === "PUT" && r.path.endsWith(`/pix/${id}`));
      return send ? [Date.parse(send.at) - sentAt - bankLatencyMs] : [];
    });

    // The right balances: each account's charge less its withdrawals; each transfer paid once at the bank.
    let balancesRight = true;
    for (const { key, fundedCents } of funded) {
      const mine = [...warm, ...single, ...made, ...newMade].filter((m) => m.key === key && m.status === 201).length;
      const balance = await json(await api(key, "GET", "/balance"), 200, "balance");
      if ((balance.availableCents as number) !== fundedCents - mine * amountCents) balancesRight = false;
    }
    const atBank = bank.payouts?.list() ?? [];
    const paidOnceAtBank = [
      ...transfers,
      ...newMade.filter((m) => m.status === 201).flatMap((m) => m.transfers.map((id) => ({ id }))),
    ].every(({ id }) => atBank.filter((p) => p.id === id && p.state === "PAID").length === 1);
    return {
      store: store.name,
      rounds: measuredRounds,
      withdrawals: ok.length,
      transfers: transfers.length,
      oursP50Ms: percentile(ours, 50),
      aloneP50Ms: percentile(alone, 50),
      oursP95Ms: percentile(ours, 95),
      createP50Ms: percentile(
        ok.map((m) => m.ms),
        50,
      ),
      finishedSeconds,
      serverCpuMsPerTransfer: median(judged.map((m) => m.cpuMs / Math.max(1, transfersOf(m.made)))),
      oursCpuMsPerTransferRounds: oursByRound,
      oursCpuMsPerTransfer: median(oursByRound.slice(settlingRounds)),
      newConnectionsCpuMsPerTransfer:
        Math.max(0, newCpuMs - newPolls * cpuMsPerPoll) / Math.max(1, transfersOf(newMade)),
      settlingRounds,
      polls: roundPolls,
      cpuMsPerPoll,
      bankCallsPerTransfer: log.length / Math.max(1, transfers.length),
      statuses,
      balancesRight,
      paidOnceAtBank,
      loadAverage: (await import("node:os")).loadavg()[0] ?? NaN,
    };
  } finally {
    await server?.stop();
    await bank.close();
  }
}

const stores = JSON.parse(process.env.BENCH_WITHDRAWALS_STORES ?? '[{"name":"memory"}]') as {
  name: string;
  databaseUrl?: string;
}[];
// This process is the load and the fake bank: on core 1, the server alone on core 0.
pin(process.pid, 1);
const dir = mkdtempSync(join(tmpdir(), "pix-bench-withdrawals-"));
try {
  const ca = createCertificateAuthority("Bench withdrawals listener CA");
  const listener = ca.issueServer(["127.0.0.1"]);
  const files = { listenerCert: join(dir, "listener.pem"), listenerKey: join(dir, "listener-key.pem") };
  writeFileSync(files.listenerCert, listener.certPem);
  writeFileSync(files.listenerKey, listener.keyPem, { mode: 0o600 });
  const results: WithdrawalsResult[] = [];
  for (const store of stores) results.push(await measureStore(store, files, ca.certPem));
  console.log(`WITHDRAWALS-RESULT ${JSON.stringify(results)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
