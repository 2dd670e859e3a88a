import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findPostgresBin, freePort, startThrowawayCluster, type ThrowawayCluster } from "../../scripts/pg-cluster.js";
import { allPermissions, createAccount, createApiKey } from "../src/domain/accounts.js";
import { DomainError } from "../src/domain/errors.js";
import type { Logger } from "pino";
import { systemClock } from "../src/domain/ports/clock.js";
import type { Store } from "../src/domain/ports/store.js";
import { MemoryStore } from "../src/store/memory.js";
import { createPool, isConnectionError, PostgresStore, toStoreError } from "../src/store/postgres/index.js";
import { DeliveryWorker } from "../src/webhooks/worker.js";
import { type CallResult, call, chargeBody } from "./harness.js";

// PostgreSQL goes away under load: a fast restart, a stop of a few seconds, a crash. The cluster is
// this file's own (the shared one must not restart under other files). Two real server processes
// serve a bounded load throughout; none may die, every answer is normal or the documented 503, and
// service comes back by itself.

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsxCli = join(root, "node_modules/tsx/dist/cli.mjs");
const adminToken = "adm_faults_0123456789abcdef";
const unavailableMessage = "Serviço temporariamente indisponível. Tente novamente em instantes.";
/** Requests of the whole load, all loops together: the load is bounded whatever happens. */
const maxRequests = 4000;
/**
 * How long a server may take to answer normally again once PostgreSQL accepts connections: the
 * pool dials anew at the next request (tens of milliseconds here); the margin is for busy machines.
 */
const recoveryBudgetMs = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hasPostgres = (await findPostgresBin()) !== null && !process.env.DATABASE_URL;
const describeFaults = hasPostgres ? describe : describe.skip;

interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

const alive = (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return false;
  try {
    process.kill(child.pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `node tsx server/src/main.ts` on a free port, waited for through /health. */
async function startServer(databaseUrl: string, rateLimits: "off" | "default"): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [tsxCli, "server/src/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      ADMIN_TOKEN: adminToken,
      ...(rateLimits === "off" ? { RATE_LIMITS: "off" } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(killer);
  };
  const server = { baseUrl, child, output: () => output, stop };
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return server;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`server did not answer /health in time:\n${output}`);
}

/** The 503 of the spec: error body with SERVICE_UNAVAILABLE, and `Retry-After` in whole seconds. */
function unavailableDefect(res: CallResult): string | null {
  const retryAfter = res.headers.get("retry-after") ?? "";
  if (
    res.status === 503 &&
    res.body?.ok === false &&
    res.body?.code === "SERVICE_UNAVAILABLE" &&
    res.body?.message === unavailableMessage &&
    typeof res.body?.path === "string" &&
    /^[1-9][0-9]*$/.test(retryAfter)
  ) {
    return null;
  }
  return `${res.status} retry-after=${retryAfter} ${JSON.stringify(res.body)}`;
}

describeFaults("PostgreSQL connection loss under load", () => {
  let cluster: ThrowawayCluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let secret: string;
  let accountId: string;

  beforeAll(async () => {
    // Crash-safe commits: an answered charge must still be there after `-m immediate`.
    cluster = await startThrowawayCluster({ database: "pix_faults", crashSafeCommits: true });
    // A without rate limits carries the money load; B keeps the shared (PostgreSQL) rate-limit
    // counters on, so its requests meet the outage in the limiter first.
    [a, b] = await Promise.all([startServer(cluster.databaseUrl, "off"), startServer(cluster.databaseUrl, "default")]);
    const store = new PostgresStore(createPool(cluster.databaseUrl, { max: 2 }));
    try {
      const now = new Date().toISOString();
      ({ secret, accountId } = await store.transaction(async (tx) => {
        const account = await createAccount(
          tx,
          { name: "Loja Resiliente Ltda", ownerEmail: "dono@resiliente.example", verified: true, releasePeriodDays: 0 },
          now,
        );
        const made = await createApiKey(
          tx,
          account,
          { name: "faults", livemode: false, permissions: [...allPermissions] },
          now,
        );
        return { secret: made.secret, accountId: account.id };
      }));
    } finally {
      await store.close();
    }
  }, 60_000);

  afterAll(async () => {
    const children = [a, b].filter((s): s is ServerProcess => s !== undefined);
    await Promise.all(children.map((s) => s.stop()));
    await cluster?.stop();
    for (const s of children) expect(alive(s.child)).toBe(false);
  }, 30_000);

  test("when PostgreSQL restarts, stops for a while and crashes under load, then both servers live, answer 503 meanwhile and resume by themselves", async () => {
    let requests = 0;
    let stopping = false;
    const defects: string[] = [];
    const unavailable = { a: 0, b: 0 };
    /** Every charge id answered per idempotency key: one charge per key means one id per key. */
    const chargesByKey = new Map<string, Set<string>>();
    const paid = new Set<string>();

    const send = async (server: ServerProcess, method: string, path: string, body?: unknown, key?: string) => {
      requests++;
      try {
        return await call(server.baseUrl, method, path, {
          key: secret,
          body,
          headers: key ? { "idempotency-key": key } : {},
        });
      } catch (error) {
        defects.push(`${method} ${path}: no answer (${(error as Error).message})`);
        return null;
      }
    };
    /** Sends until a normal answer, retrying 503s as a client should (same idempotency key). */
    const untilAnswered = async (
      server: ServerProcess,
      name: "a" | "b",
      method: string,
      path: string,
      body?: unknown,
      key?: string,
    ) => {
      while (requests < maxRequests) {
        const res = await send(server, method, path, body, key);
        if (!res) return null;
        if (res.status !== 503) return res;
        unavailable[name]++;
        const defect = unavailableDefect(res);
        if (defect) defects.push(`${method} ${path}: ${defect}`);
        await sleep(50);
      }
      return null;
    };

    /** Charges with an idempotency key, every other one paid in the sandbox. */
    const chargeLoop = async (loop: number) => {
      for (let i = 0; !stopping && requests < maxRequests; i++) {
        const key = `falha-${loop}-${i}`;
        const res = await untilAnswered(
          a,
          "a",
          "POST",
          "/api/v1/charges/pix",
          chargeBody({ metadata: { orderId: key } }),
          key,
        );
        if (!res) return;
        if (res.status !== 201) {
          defects.push(`charge ${key}: ${res.status} ${JSON.stringify(res.body)}`);
          continue;
        }
        const ids = chargesByKey.get(key) ?? new Set<string>();
        ids.add(res.body.id as string);
        chargesByKey.set(key, ids);
        // The same key again: replayed, never a second charge.
        const replay = await untilAnswered(
          a,
          "a",
          "POST",
          "/api/v1/charges/pix",
          chargeBody({ metadata: { orderId: key } }),
          key,
        );
        if (replay?.status === 201) ids.add(replay.body.id as string);
        if (i % 2 === 0) {
          const pay = await untilAnswered(a, "a", "POST", `/api/v1/sandbox/transactions/${res.body.id}/pay`);
          // A 503 whose COMMIT had gone through leaves it paid: paying again is then refused.
          if (pay?.status === 200 || pay?.status === 400) paid.add(res.body.id as string);
          else if (pay) defects.push(`pay ${res.body.id}: ${pay.status} ${JSON.stringify(pay.body)}`);
        }
        await sleep(100);
      }
    };
    /** Balance reads on B, paced under its GET budget (120 a minute). */
    const balanceLoop = async () => {
      while (!stopping && requests < maxRequests) {
        const res = await untilAnswered(b, "b", "GET", "/api/v1/balance");
        if (res && res.status !== 200) defects.push(`balance: ${res.status} ${JSON.stringify(res.body)}`);
        await sleep(600);
      }
    };

    /** Polls until `server` answers GET /balance with 200; returns how long that took. */
    const recovery = async (server: ServerProcess) => {
      const from = Date.now();
      while (Date.now() - from < recoveryBudgetMs * 2) {
        const res = await call(server.baseUrl, "GET", "/api/v1/balance", { key: secret }).catch(() => null);
        if (res?.status === 200) return Date.now() - from;
        await sleep(25);
      }
      return Number.POSITIVE_INFINITY;
    };
    const bothAlive = () => [alive(a.child), alive(b.child)];

    const load = Promise.all([chargeLoop(0), chargeLoop(1), chargeLoop(2), balanceLoop()]);
    await sleep(1000);

    // 1. A fast restart: every session is ended (57P01) while requests are in flight.
    await cluster.restart("fast");
    expect(bothAlive()).toEqual([true, true]);
    const afterRestart = await Promise.all([recovery(a), recovery(b)]);

    // 2. Down for three seconds: meanwhile every API (public and operator) answers the 503.
    await cluster.halt("fast");
    await sleep(500);
    const during = await Promise.all([
      call(a.baseUrl, "GET", "/api/v1/balance", { key: secret }),
      call(b.baseUrl, "POST", "/api/v1/charges/pix", { key: secret, body: chargeBody() }),
      call(a.baseUrl, "GET", "/admin/v1/accounts", { admin: adminToken }),
    ]);
    await sleep(2500);
    expect(bothAlive()).toEqual([true, true]);
    await cluster.resume();
    const afterStop = await Promise.all([recovery(a), recovery(b)]);

    // 3. A crash (immediate shutdown: no goodbye to the sessions), then crash recovery at start.
    await cluster.halt("immediate");
    await sleep(1000);
    expect(bothAlive()).toEqual([true, true]);
    await cluster.resume();
    const afterCrash = await Promise.all([recovery(a), recovery(b)]);

    await sleep(500);
    stopping = true;
    await load;

    expect(bothAlive()).toEqual([true, true]);
    expect(during.map(unavailableDefect)).toEqual([null, null, null]);
    expect(defects).toEqual([]);
    expect(unavailable.a + unavailable.b).toBeGreaterThan(0);
    for (const ms of [...afterRestart, ...afterStop, ...afterCrash]) expect(ms).toBeLessThan(recoveryBudgetMs);
    expect(requests).toBeLessThan(maxRequests);
    for (const server of [a, b]) {
      expect(server.output()).not.toMatch(/Unhandled 'error' event|uncaughtException|unhandledRejection/);
    }

    // Invariants: one charge per idempotency key; the ledger sums are the balances; paid is paid.
    const sql = new pg.Pool({ connectionString: cluster.databaseUrl, max: 1 });
    try {
      expect([...chargesByKey.values()].filter((ids) => ids.size !== 1)).toEqual([]);
      const perKey = await sql.query(
        `SELECT metadata ->> 'orderId' AS key, count(*)::int AS n FROM transactions
         WHERE account_id = $1 GROUP BY 1 HAVING count(*) > 1`,
        [accountId],
      );
      expect(perKey.rows).toEqual([]);
      const charges = await sql.query(`SELECT count(*)::int AS n FROM transactions WHERE account_id = $1`, [accountId]);
      expect(charges.rows[0].n).toBe(chargesByKey.size);
      const mismatched = await sql.query(
        `SELECT b.account_id FROM ledger_balances b
         LEFT JOIN (SELECT account_id, livemode,
                           sum(amount_cents) FILTER (WHERE bucket = 'available') AS available,
                           sum(amount_cents) FILTER (WHERE bucket = 'blocked') AS blocked
                    FROM ledger_entries GROUP BY 1, 2) e USING (account_id, livemode)
         WHERE b.available_total_cents <> coalesce(e.available, 0) OR b.blocked_cents <> coalesce(e.blocked, 0)`,
      );
      expect(mismatched.rows).toEqual([]);
      const paidRows = await sql.query(
        `SELECT count(*)::int AS n FROM transactions WHERE account_id = $1 AND status = 'PAID'`,
        [accountId],
      );
      const credited = await sql.query(
        `SELECT count(*)::int AS n, count(DISTINCT ref_id)::int AS refs FROM ledger_entries
         WHERE account_id = $1 AND kind = 'charge_paid'`,
        [accountId],
      );
      expect(paidRows.rows[0].n).toBe(paid.size);
      expect(credited.rows[0]).toEqual({ n: paid.size, refs: paid.size });
    } finally {
      await sql.end();
    }
  }, 60_000);

  test("when the database is stopped, then the hosted checkout answers a 503 page with Retry-After, and its own 404 once it is back", async () => {
    const page = `${a.baseUrl}/checkout/plk_semBancoDeDados`;
    await cluster.halt("fast");
    let during: Response;
    try {
      during = await fetch(page);
    } finally {
      await cluster.resume();
    }
    expect(during.status).toBe(503);
    expect(during.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    expect(await during.text()).toContain("Serviço temporariamente indisponível");
    let after = await fetch(page);
    for (let i = 0; i < 40 && after.status === 503; i++) {
      await sleep(50);
      after = await fetch(page);
    }
    expect(after.status).toBe(404);
  });

  test("when the server has just ended the pool's idle connections, then the next reads and transactions run on fresh ones", async () => {
    const store = new PostgresStore(createPool(cluster.databaseUrl, { max: 4 }));
    const killer = new pg.Pool({ connectionString: cluster.databaseUrl, max: 1 });
    try {
      const ends = async () => {
        // Four idle connections in the pool, then ended by the server as a restart would.
        await Promise.all(Array.from({ length: 4 }, () => store.read.accounts.count()));
        const result = await killer.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = 'pix-charging-service' AND state = 'idle' AND pid <> pg_backend_pid()
             AND query LIKE 'SELECT count(*) AS count FROM accounts%'`,
        );
        return result.rowCount ?? 0;
      };

      expect(await ends()).toBeGreaterThan(0);
      const reads = await Promise.allSettled(Array.from({ length: 4 }, () => store.read.accounts.count()));
      expect(await ends()).toBeGreaterThan(0);
      const transactions = await Promise.allSettled(
        Array.from({ length: 4 }, () => store.transaction((tx) => tx.accounts.count())),
      );

      expect([...reads, ...transactions].map((r) => r.status)).toEqual(Array(8).fill("fulfilled"));
    } finally {
      await killer.end();
      await store.close();
    }
  });

  test("when the server ends a transaction's connection between two statements, then the process lives and the transaction fails with SERVICE_UNAVAILABLE", async () => {
    const warnings: string[] = [];
    const logger = {
      warn: (_o: object, m: string) => warnings.push(m),
      error: (_o: object, m: string) => warnings.push(m),
    };
    const store = new PostgresStore(createPool(cluster.databaseUrl, { max: 2, logger }), { logger });
    const killer = new pg.Pool({ connectionString: cluster.databaseUrl, max: 1 });
    try {
      let ended = 0;
      const outcome = store.transaction(async (tx) => {
        await tx.accounts.count();
        const result = await killer.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = 'pix-charging-service' AND state = 'idle in transaction'
             AND query LIKE 'SELECT count(*) AS count FROM accounts%'`,
        );
        ended = result.rowCount ?? 0;
        // The 'error' event reaches the checked-out client while the work waits here.
        await sleep(300);
        return tx.accounts.count();
      });

      await expect(outcome).rejects.toBeInstanceOf(DomainError);
      await expect(outcome).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
      expect(ended).toBe(1);
      expect(warnings).toContain("PostgreSQL connection lost; the pool dials anew");
      expect(await store.read.accounts.count()).toBeGreaterThan(0);
    } finally {
      await killer.end();
      await store.close();
    }
  });
});

describe("which PostgreSQL errors mean the database is away", () => {
  const pgError = (code: string, message = "boom") => Object.assign(new Error(message), { code });

  test.each([
    ["57P01", "terminating connection due to administrator command"],
    ["57P02", "terminating connection due to crash of another server process"],
    ["57P03", "the database system is shutting down"],
    ["08006", "connection failure"],
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"],
    ["ECONNRESET", "read ECONNRESET"],
  ])("when the code is %s, then it becomes SERVICE_UNAVAILABLE (503)", (code, message) => {
    const cause = pgError(code, message);
    const mapped = toStoreError(cause);
    expect(mapped).toBeInstanceOf(DomainError);
    expect(mapped).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, cause });
  });

  test.each(["Connection terminated unexpectedly", "timeout exceeded when trying to connect"])(
    "when node-postgres says %j without a code, then it is a lost connection",
    (message) => {
      expect(isConnectionError(new Error(message))).toBe(true);
    },
  );

  test("when the statement itself fails (unique violation, serialization failure, a bug), then the error passes unchanged", () => {
    for (const error of [pgError("23505"), pgError("40001"), new TypeError("x is undefined")]) {
      expect(toStoreError(error)).toBe(error);
    }
  });
});

describe("the webhook worker while the database is away", () => {
  test("when its passes fail with SERVICE_UNAVAILABLE, then it logs once, keeps polling and logs the recovery", async () => {
    const memory = new MemoryStore();
    let away = true;
    let passes = 0;
    const flaky: Store = {
      read: memory.read,
      transaction: (work) => {
        passes++;
        if (away)
          return Promise.reject(
            toStoreError(Object.assign(new Error("the database system is shutting down"), { code: "57P03" })),
          );
        return memory.transaction(work);
      },
      ping: () => memory.ping(),
      close: () => memory.close(),
    };
    const logged: string[] = [];
    const log = (_object: object, message?: string) => logged.push(message ?? String(_object));
    const logger = { error: log, warn: log, info: log, debug: log } as unknown as Logger;
    const worker = new DeliveryWorker({
      store: flaky,
      clock: systemClock,
      logger,
      allowLoopbackForTest: true,
      pollMs: 5,
    });

    worker.start();
    await sleep(150);
    const failedPasses = passes;
    away = false;
    await sleep(100);
    await worker.stop();

    expect(failedPasses).toBeGreaterThan(3);
    expect(passes).toBeGreaterThan(failedPasses);
    expect(logged).toEqual(["webhook worker pass failed", "webhook worker passes succeed again"]);
  });
});
