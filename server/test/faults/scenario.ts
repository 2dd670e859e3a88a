import pg from "pg";
import { startThrowawayCluster, type ThrowawayCluster } from "../../../scripts/pg-cluster.js";
import { allPermissions, createAccount, createApiKey } from "../../src/domain/accounts/index.js";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { byId, chargeBody, type ErrorBody, operatorApi, publicApi } from "../harness.js";
import { listensOn, type ServerProcess as BaseServerProcess, startServerProcess } from "../support/server-process.js";
import { seededRandom } from "../support/random.js";

// PostgreSQL goes away under load, as often as asked: fast restarts, stops of a few seconds,
// crashes. A cluster of its own (the shared one must not restart under other tests), two real
// server processes under a bounded load; after every outage and at the end: no process died, every
// answer is normal or the documented 503, service comes back by itself within a budget, the ledger
// sums are the balances and each idempotency key made one charge. postgres-faults.test.ts runs one
// outage of each kind; `npm run faults -- --restarts N` (run.ts) runs many.

const adminToken = "adm_faults_0123456789abcdef";
const unavailableMessage = "Serviço temporariamente indisponível. Tente novamente em instantes.";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `restart`: `pg_ctl restart -m fast`; `stop`: down (fast) for `downMs`; `crash`: `-m immediate`, down `downMs`. */
export type OutageKind = "restart" | "stop" | "crash";
export const outageKinds: readonly OutageKind[] = ["restart", "stop", "crash"];

export interface Outage {
  kind: OutageKind;
  /** Load before this outage begins. */
  leadMs: number;
  /** How long the database stays down (stop, crash); 0 for a restart. */
  downMs: number;
}

/** The CI run: one outage of each kind. */
export const oneOfEach: Outage[] = [
  { kind: "restart", leadMs: 1000, downMs: 0 },
  { kind: "stop", leadMs: 0, downMs: 3000 },
  { kind: "crash", leadMs: 0, downMs: 1000 },
];

/**
 * `count` outages drawn from `kinds` by `seed`: each kind at least once when there is room, load of
 * 0.3–1.5 s before each (so the fault meets requests at different moments), stops of 1.5–4 s,
 * crashes down for 0.6–2 s.
 */
export function planOutages(count: number, seed: number, kinds: readonly OutageKind[] = outageKinds): Outage[] {
  if (kinds.length === 0) throw new Error("no outage kinds");
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  // Each kind once, in an order of the seed (Fisher–Yates), then any.
  const first = [...kinds];
  for (let i = first.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [first[i], first[j]] = [first[j] as OutageKind, first[i] as OutageKind];
  }
  return Array.from({ length: count }, (_, i) => {
    const kind = first[i] ?? pick(kinds);
    const leadMs = 300 + Math.floor(next() * 1200);
    const downMs =
      kind === "stop" ? 1500 + Math.floor(next() * 2500) : kind === "crash" ? 600 + Math.floor(next() * 1400) : 0;
    return { kind, leadMs, downMs };
  });
}

export interface FaultLimits {
  /** Requests of the whole load, all loops together: the load is bounded whatever happens. */
  maxRequests: number;
  /**
   * How long a server may take to answer normally again once PostgreSQL accepts connections: the
   * pool dials anew at the next request (tens of milliseconds here); the margin is for busy machines.
   */
  recoveryBudgetMs: number;
  /** The load stops by then at the latest, outages or not. */
  maxDurationMs: number;
  /** Concurrent charge loops on A (each: charge, replay, every other one paid, 100 ms pause). */
  chargeLoops: number;
}

/**
 * Bounds for `outages` outages and `chargeLoops` (1–16) charge loops: 4,000 requests for the CI run
 * of three outages and three loops.
 */
export function faultLimits(outages: readonly Outage[], chargeLoops = 3): FaultLimits {
  if (!Number.isInteger(chargeLoops) || chargeLoops < 1 || chargeLoops > 16) throw new Error("1 to 16 charge loops");
  const planned = outages.reduce((ms, o) => ms + o.leadMs + o.downMs, 0);
  return {
    chargeLoops,
    maxRequests: 1000 + Math.ceil((1000 * outages.length * chargeLoops) / 3),
    recoveryBudgetMs: 2000,
    maxDurationMs: 30_000 + planned + 10_000 * outages.length,
  };
}

export { listensOn };

/** One of the scenario's two servers: a real server process, named for the report. */
export interface ServerProcess extends BaseServerProcess {
  name: "a" | "b";
}

/** Server `name` on a free port, through the shared starter (the pid watched is the one that serves). */
async function startServer(
  name: "a" | "b",
  databaseUrl: string,
  rateLimits: "off" | "default",
  track: (stop: () => Promise<void>) => void,
): Promise<ServerProcess> {
  const server = await startServerProcess({
    name,
    env: {
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: adminToken,
      ...(rateLimits === "off" ? { RATE_LIMITS: "off" } : {}),
    },
    track,
  });
  return { ...server, name };
}

/** The cluster, the two servers and a verified account with a test key. */
export interface FaultRig {
  cluster: ThrowawayCluster;
  /** A without rate limits carries the money load; B keeps the shared (PostgreSQL) rate-limit counters on. */
  a: ServerProcess;
  b: ServerProcess;
  secret: string;
  accountId: string;
  adminToken: string;
}

/**
 * Starts the rig; `stop` ends whatever has started (the servers, then the cluster and its folder),
 * also halfway through `start` (Ctrl-C while starting: it waits for the start to give up), and may
 * be called any number of times.
 */
export function faultRig(): { start(): Promise<FaultRig>; stop(): Promise<void> } {
  let cluster: ThrowawayCluster | undefined;
  const stoppers: (() => Promise<void>)[] = [];
  let stopped = false;
  let starting: Promise<FaultRig> | undefined;
  let stopping: Promise<void> | undefined;
  const stopServers = () => Promise.allSettled(stoppers.map((stop) => stop()));
  const stop = () =>
    (stopping ??= (async () => {
      stopped = true;
      await stopServers();
      await starting?.catch(() => undefined);
      await stopServers();
      await cluster?.stop();
    })());
  const unlessStopped = () => {
    if (stopped) throw new Error("the fault rig was stopped while starting");
  };
  const begin = async (): Promise<FaultRig> => {
    // Crash-safe commits: an answered charge must still be there after `-m immediate`.
    cluster = await startThrowawayCluster({ database: "pix_faults", crashSafeCommits: true });
    unlessStopped();
    const { databaseUrl } = cluster;
    const track = (stop: () => Promise<void>) => void stoppers.push(stop);
    const [a, b] = await Promise.allSettled([
      startServer("a", databaseUrl, "off", track),
      startServer("b", databaseUrl, "default", track),
    ]);
    if (a.status === "rejected") throw a.reason;
    if (b.status === "rejected") throw b.reason;
    unlessStopped();
    const store = new PostgresStore(createPool(databaseUrl, { max: 2 }));
    try {
      const now = new Date().toISOString();
      const made = await store.transaction(async (tx) => {
        const account = await createAccount(
          tx,
          { name: "Loja Resiliente Ltda", ownerEmail: "dono@resiliente.example", verified: true, releasePeriodDays: 0 },
          now,
        );
        const key = await createApiKey(
          tx,
          account,
          { name: "faults", livemode: false, permissions: [...allPermissions] },
          now,
        );
        return { secret: key.secret, accountId: account.id };
      });
      return { cluster, a: a.value, b: b.value, adminToken, ...made };
    } finally {
      await store.close();
    }
  };
  const start = async () => {
    starting = begin();
    try {
      return await starting;
    } catch (error) {
      await stop();
      throw error;
    }
  };
  return { start, stop };
}

/** The 503 of the spec: error body with SERVICE_UNAVAILABLE, and `Retry-After` in whole seconds. */
function unavailableDefect(res: { status: number; body: unknown; headers: Headers }): string | null {
  const retryAfter = res.headers.get("retry-after") ?? "";
  const body = (typeof res.body === "object" && res.body !== null ? res.body : {}) as Partial<ErrorBody>;
  if (
    res.status === 503 &&
    body.ok === false &&
    body.code === "SERVICE_UNAVAILABLE" &&
    body.message === unavailableMessage &&
    typeof body.path === "string" &&
    /^[1-9][0-9]*$/.test(retryAfter)
  ) {
    return null;
  }
  return `${res.status} retry-after=${retryAfter} ${JSON.stringify(res.body)}`;
}

export interface OutageResult extends Outage {
  /** Both servers' processes while the database was down (after a restart: right after it). */
  aliveDuring: [boolean, boolean];
  /** Answers of requests sent while the database was down that were not the documented 503. */
  probeDefects: string[];
  /** Milliseconds until A and B answered GET /balance with 200 again (Infinity: not in twice the budget). */
  recoveryMs: [number, number];
  aliveAfter: [boolean, boolean];
  /** Broken invariants in the database right after the recovery. */
  invariants: string[];
}

export interface FaultReport {
  outages: OutageResult[];
  /** Requests of the load (probes and recovery polls aside). */
  requests: number;
  /** Documented 503s the load met (A, B). */
  unavailable: { a: number; b: number };
  /** Every status the load met, with its count. */
  statuses: Record<string, number>;
  /** Answers or failures of the load that are neither normal nor the documented 503. */
  defects: string[];
  /** Charges made (one per idempotency key) and paid. */
  charges: number;
  paid: number;
  alive: [boolean, boolean];
  /** Whether each pid still holds its server's listening socket (null: cannot tell). */
  serving: [boolean | null, boolean | null];
  /** Lines of the servers' output that tell of a crash averted by luck (unhandled errors). */
  crashLines: string[];
  /** Broken invariants at the end. */
  invariants: string[];
  durationMs: number;
}

/** Everything in `report` that is a failure, one sentence each; empty when the run passed. */
export function faultProblems(report: FaultReport, limits: FaultLimits): string[] {
  const problems: string[] = [];
  const names = ["A", "B"] as const;
  report.outages.forEach((o, i) => {
    const at = `outage ${i + 1} (${o.kind})`;
    names.forEach((name, s) => {
      if (!o.aliveDuring[s]) problems.push(`${at}: server ${name} died while the database was down`);
      if (!o.aliveAfter[s]) problems.push(`${at}: server ${name} died`);
      const ms = o.recoveryMs[s] ?? Number.POSITIVE_INFINITY;
      if (!(ms < limits.recoveryBudgetMs))
        problems.push(`${at}: server ${name} recovered in ${ms} ms (budget ${limits.recoveryBudgetMs} ms)`);
    });
    for (const defect of o.probeDefects) problems.push(`${at}: ${defect}`);
    for (const broken of o.invariants) problems.push(`${at}: ${broken}`);
  });
  names.forEach((name, s) => {
    if (!report.alive[s]) problems.push(`server ${name} is not alive at the end`);
    if (report.serving[s] === false) problems.push(`server ${name}'s pid no longer holds its listening socket`);
  });
  for (const defect of report.defects) problems.push(defect);
  if (report.unavailable.a + report.unavailable.b === 0) problems.push("the load met no 503: no outage was seen");
  if (report.requests >= limits.maxRequests) problems.push(`the load reached its bound of ${limits.maxRequests}`);
  for (const line of report.crashLines) problems.push(`server output: ${line}`);
  for (const broken of report.invariants) problems.push(broken);
  return problems;
}

/** The load's findings so far: what the invariants are checked against. */
interface Seen {
  /** Every charge id answered per idempotency key: one charge per key means one id per key. */
  chargesByKey: Map<string, Set<string>>;
  paid: Set<string>;
}

/**
 * Invariants in the database: one charge per idempotency key, the ledger sums are the balances,
 * each paid charge credited once. `final` (the load has stopped) adds: the charges and paid ones are
 * exactly those the load was answered about.
 */
async function brokenInvariants(rig: FaultRig, seen: Seen, final: boolean): Promise<string[]> {
  const broken: string[] = [];
  const twice = [...seen.chargesByKey].filter(([, ids]) => ids.size !== 1).map(([key]) => key);
  if (twice.length > 0) broken.push(`idempotency keys answered with several charges: ${twice.join(", ")}`);
  const sql = new pg.Client({ connectionString: rig.cluster.databaseUrl });
  await sql.connect();
  try {
    const perKey = await sql.query(
      `SELECT metadata ->> 'orderId' AS key, count(*)::int AS n FROM transactions
       WHERE account_id = $1 GROUP BY 1 HAVING count(*) > 1`,
      [rig.accountId],
    );
    for (const row of perKey.rows) broken.push(`${row.n} charges for the key ${row.key}`);
    const mismatched = await sql.query(
      `SELECT b.account_id FROM ledger_balances b
       LEFT JOIN (SELECT account_id, livemode,
                         sum(amount_cents) FILTER (WHERE bucket = 'available') AS available,
                         sum(amount_cents) FILTER (WHERE bucket = 'blocked') AS blocked
                  FROM ledger_entries GROUP BY 1, 2) e USING (account_id, livemode)
       WHERE b.available_total_cents <> coalesce(e.available, 0) OR b.blocked_cents <> coalesce(e.blocked, 0)`,
    );
    for (const row of mismatched.rows) broken.push(`ledger sums differ from the balance of ${row.account_id}`);
    // One statement, one snapshot: a payment commits its status and its credit together.
    const counts = await sql.query(
      `SELECT (SELECT count(*)::int FROM transactions WHERE account_id = $1) AS charges,
              (SELECT count(*)::int FROM transactions WHERE account_id = $1 AND status = 'PAID') AS paid,
              (SELECT count(*)::int FROM ledger_entries WHERE account_id = $1 AND kind = 'charge_paid') AS credits,
              (SELECT count(DISTINCT ref_id)::int FROM ledger_entries
               WHERE account_id = $1 AND kind = 'charge_paid') AS credited`,
      [rig.accountId],
    );
    const { charges, paid, credits, credited } = counts.rows[0];
    if (credits !== credited) broken.push(`${credits} credits for ${credited} paid charges`);
    if (credited !== paid) broken.push(`${paid} paid charges, ${credited} credited`);
    if (final && charges !== seen.chargesByKey.size)
      broken.push(`${charges} charges in the database, ${seen.chargesByKey.size} answered`);
    if (final && paid !== seen.paid.size)
      broken.push(`${paid} paid charges in the database, ${seen.paid.size} answered`);
  } finally {
    await sql.end().catch(() => undefined);
  }
  return broken;
}

const crashMarkers = /Unhandled 'error' event|uncaughtException|unhandledRejection/;

/**
 * The load on both servers while the outages of `plan` happen one after another, with the checks
 * after each and at the end. `log` hears one line per outage.
 */
export async function runFaultScenario(
  rig: FaultRig,
  plan: readonly Outage[],
  limits: FaultLimits,
  log: (line: string) => void = () => undefined,
): Promise<FaultReport> {
  const { a, b, cluster, secret } = rig;
  const began = Date.now();
  const loadDeadline = began + limits.maxDurationMs;
  let requests = 0;
  let stopping = false;
  const defects: string[] = [];
  const unavailable = { a: 0, b: 0 };
  const statuses: Record<string, number> = {};
  const seen: Seen = { chargesByKey: new Map(), paid: new Set() };
  const more = () => !stopping && requests < limits.maxRequests && Date.now() < loadDeadline;

  /** The public API of `server` with the scenario's key, and `idempotencyKey` when given. */
  const api = (server: ServerProcess, idempotencyKey?: string) =>
    publicApi(server.baseUrl, { key: secret, ...(idempotencyKey ? { idempotencyKey } : {}) });
  type Api = ReturnType<typeof api>;
  type Sent = { status: number; body: unknown; headers: Headers };

  /** One request (`what` names it in a defect), counted by its status; null when nothing answered. */
  const send = async <A extends Sent>(
    server: ServerProcess,
    what: string,
    request: (api: Api) => Promise<A>,
    key?: string,
  ) => {
    requests++;
    try {
      const res = await request(api(server, key));
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      return res;
    } catch (error) {
      defects.push(`${server.name} ${what}: no answer (${(error as Error).message})`);
      return null;
    }
  };
  /** Sends until a normal answer, retrying 503s as a client should (same idempotency key). */
  const untilAnswered = async <A extends Sent>(
    server: ServerProcess,
    what: string,
    request: (api: Api) => Promise<A>,
    key?: string,
  ) => {
    while (requests < limits.maxRequests && Date.now() < loadDeadline) {
      const res = await send(server, what, request, key);
      if (!res) return null;
      if (res.status !== 503) return res;
      unavailable[server.name]++;
      const defect = unavailableDefect(res);
      if (defect) defects.push(`${server.name} ${what}: ${defect}`);
      await sleep(50);
    }
    return null;
  };

  /** Charges on A with an idempotency key, each sent twice, every other one paid in the sandbox. */
  const chargeLoop = async (loop: number) => {
    for (let i = 0; more(); i++) {
      const key = `falha-${loop}-${i}`;
      const body = chargeBody({ metadata: { orderId: key } });
      const create = (api: Api) => api.POST("/api/v1/charges/pix", { body });
      const res = await untilAnswered(a, "POST /api/v1/charges/pix", create, key);
      if (!res) return;
      if (res.status !== 201) {
        defects.push(`charge ${key}: ${res.status} ${JSON.stringify(res.body)}`);
        continue;
      }
      const ids = seen.chargesByKey.get(key) ?? new Set<string>();
      ids.add(res.body.id);
      seen.chargesByKey.set(key, ids);
      // The same key again: replayed, never a second charge.
      const replay = await untilAnswered(a, "POST /api/v1/charges/pix", create, key);
      if (replay?.status === 201) ids.add(replay.body.id);
      else if (replay) defects.push(`replay ${key}: ${replay.status} ${JSON.stringify(replay.body)}`);
      if (i % 2 === 0) {
        const { id } = res.body;
        const pay = await untilAnswered(a, `POST /api/v1/sandbox/transactions/${id}/pay`, (api) =>
          api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(id)),
        );
        // A 503 whose COMMIT had gone through leaves it paid: paying again is then refused.
        if (pay?.status === 200 || pay?.status === 400) seen.paid.add(id);
        else if (pay) defects.push(`pay ${res.body.id}: ${pay.status} ${JSON.stringify(pay.body)}`);
      }
      await sleep(100);
    }
  };
  /** Balance reads on B, paced well under its GET budget (120 a minute, shared with the recovery polls). */
  const balanceLoop = async () => {
    while (more()) {
      const res = await untilAnswered(b, "GET /api/v1/balance", (api) => api.GET("/api/v1/balance"));
      if (res && res.status !== 200) defects.push(`balance: ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(1000);
    }
  };

  /** Polls until `server` answers GET /balance with 200; returns how long that took. */
  const recovery = async (server: ServerProcess) => {
    const from = Date.now();
    while (Date.now() - from < limits.recoveryBudgetMs * 2) {
      const res = await api(server)
        .GET("/api/v1/balance")
        .catch(() => null);
      if (res?.status === 200) return Date.now() - from;
      await sleep(25);
    }
    return Number.POSITIVE_INFINITY;
  };
  const bothAlive = (): [boolean, boolean] => [a.alive(), b.alive()];
  /** While the database is down, every API (public, operator, readiness) answers the documented 503. */
  const probe = async () => {
    const answers = await Promise.all([
      api(a).GET("/api/v1/balance"),
      api(b).POST("/api/v1/charges/pix", { body: chargeBody() }),
      operatorApi(a.baseUrl, { token: rig.adminToken }).GET("/admin/v1/accounts"),
      publicApi(b.baseUrl).GET("/ready"),
    ]).catch((error: Error) => [error]);
    const named = ["A GET /balance", "B POST /charges/pix", "A GET /admin/v1/accounts", "B GET /ready"];
    return answers.flatMap((res, i) => {
      if (res instanceof Error) return [`probes: no answer (${res.message})`];
      const defect = unavailableDefect(res);
      return defect ? [`${named[i]} while down: ${defect}`] : [];
    });
  };

  const load = Promise.all([...Array.from({ length: limits.chargeLoops }, (_, i) => chargeLoop(i)), balanceLoop()]);
  const outages: OutageResult[] = [];
  try {
    for (const [index, outage] of plan.entries()) {
      if (Date.now() + outage.leadMs + outage.downMs > loadDeadline) {
        defects.push(`outage ${index + 1} not run: the duration bound of ${limits.maxDurationMs} ms is near`);
        break;
      }
      await sleep(outage.leadMs);
      let probeDefects: string[] = [];
      let aliveDuring: [boolean, boolean];
      if (outage.kind === "restart") {
        // Every session is ended (57P01) while requests are in flight.
        await cluster.restart("fast");
        aliveDuring = bothAlive();
      } else {
        await cluster.halt(outage.kind === "stop" ? "fast" : "immediate");
        const probeAt = Math.min(500, outage.downMs / 2);
        await sleep(probeAt);
        probeDefects = await probe();
        await sleep(outage.downMs - probeAt);
        aliveDuring = bothAlive();
        await cluster.resume();
      }
      const recoveryMs = (await Promise.all([recovery(a), recovery(b)])) as [number, number];
      const aliveAfter = bothAlive();
      const invariants = await brokenInvariants(rig, seen, false);
      outages.push({ ...outage, aliveDuring, probeDefects, recoveryMs, aliveAfter, invariants });
      const down = outage.kind === "restart" ? "" : ` (down ${outage.downMs} ms)`;
      const ok = (broken: string[]) => (broken.length === 0 ? "ok" : broken.join("; "));
      log(
        `outage ${index + 1}/${plan.length} ${outage.kind}${down}: recovered A ${recoveryMs[0]} ms, B ${recoveryMs[1]} ms;` +
          ` alive ${aliveAfter.filter(Boolean).length}/2; probes ${ok(probeDefects)}; invariants ${ok(invariants)};` +
          ` ${requests} requests, ${unavailable.a + unavailable.b} 503s so far`,
      );
    }
    await sleep(500);
  } finally {
    stopping = true;
    await load;
  }

  // The webhook listener reports a lost connection once per outage, not once per redial.
  for (const server of [a, b]) {
    const reports = server
      .output()
      .split("\n")
      .filter((line) => line.includes("LISTEN connection lost")).length;
    if (reports > outages.length)
      defects.push(`${server.name}: the webhook listener reported ${reports} losses over ${outages.length} outages`);
  }
  const crashLines = [a, b].flatMap((s) =>
    s
      .output()
      .split("\n")
      .filter((line) => crashMarkers.test(line))
      .map((line) => `${s.name}: ${line.slice(0, 300)}`),
  );
  return {
    outages,
    requests,
    unavailable,
    statuses,
    defects,
    charges: seen.chargesByKey.size,
    paid: seen.paid.size,
    alive: bothAlive(),
    serving: [await listensOn(a.pid, a.port), await listensOn(b.pid, b.port)],
    crashLines,
    invariants: await brokenInvariants(rig, seen, true),
    durationMs: Date.now() - began,
  };
}
