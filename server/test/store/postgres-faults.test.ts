import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findPostgresBin, type ThrowawayCluster } from "../../../scripts/pg-cluster.js";
import { DomainError } from "../../src/domain/core/errors.js";
import type { Logger } from "pino";
import { systemClock } from "../../src/domain/ports/clock.js";
import type { Store } from "../../src/domain/ports/store.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { createPool, isConnectionError, PostgresStore, toStoreError } from "../../src/store/postgres/index.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import {
  faultLimits,
  faultProblems,
  type FaultReport,
  faultRig,
  type FaultRig,
  listensOn,
  oneOfEach,
  planOutages,
  runFaultScenario,
  type ServerProcess,
} from "../faults/scenario.js";

// PostgreSQL goes away under load: a fast restart, a stop of a few seconds, a crash (the scenario of
// faults/scenario.ts, whose `npm run faults -- --restarts N` runs many). The cluster is this file's
// own (the shared one must not restart under other files). Two real server processes serve a
// bounded load throughout; none may die, every answer is normal or the documented 503, and service
// comes back by itself.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hasPostgres = (await findPostgresBin()) !== null && !process.env.DATABASE_URL;
const describeFaults = hasPostgres ? describe : describe.skip;

describeFaults("PostgreSQL connection loss under load", () => {
  const rig = faultRig();
  let started: FaultRig;
  let cluster: ThrowawayCluster;
  let a: ServerProcess;

  beforeAll(async () => {
    started = await rig.start();
    ({ cluster, a } = started);
  }, 60_000);

  afterAll(async () => {
    await rig.stop();
    if (started) for (const s of [started.a, started.b]) expect(s.alive()).toBe(false);
  }, 30_000);

  test("when the servers start, then each watched pid is the process that holds its listening socket", async () => {
    for (const s of [started.a, started.b]) {
      expect(s.pid).toBe(s.child.pid);
      // Linux tells through /proc; elsewhere null, and the scenario's checks of the pid stand alone.
      expect([true, null]).toContain(await listensOn(s.pid, s.port));
    }
    // And it can say no: this process (as a launcher would) holds no server's socket.
    expect([false, null]).toContain(await listensOn(process.pid, started.a.port));
  });

  test("when PostgreSQL restarts, stops for a while and crashes under load, then both servers live, answer 503 meanwhile and resume by themselves", async () => {
    const limits = faultLimits(oneOfEach);
    const report = await runFaultScenario(started, oneOfEach, limits);

    expect(faultProblems(report, limits)).toEqual([]);
    // What the run saw, so a scenario that skipped its outages or its load cannot pass.
    expect(report.outages.map((o) => o.kind)).toEqual(["restart", "stop", "crash"]);
    expect(report.alive).toEqual([true, true]);
    expect(report.unavailable.a).toBeGreaterThan(0);
    expect(report.charges).toBeGreaterThan(10);
    expect(report.paid).toBeGreaterThan(5);
    expect(report.statuses["500"]).toBeUndefined();
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

  test("when a connection is lost while checked out before its borrower listens (a hand-over inside a read of the socket), then the process lives and the next statements run on a fresh connection", async () => {
    const pool = createPool(cluster.databaseUrl, { max: 1 });
    const store = new PostgresStore(pool);
    const killer = new pg.Pool({ connectionString: cluster.databaseUrl, max: 1 });
    try {
      // The window: the pool stopped listening when it handed the connection over, and the
      // borrower has not started to. The server's FATAL arrives then, with no statement running.
      const client = await pool.connect();
      let lost: unknown;
      try {
        const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
        await killer.query("SELECT pg_terminate_backend($1)", [pid]);
        for (let waited = 0; waited < 5_000; waited += 50) {
          lost = await client.query("SELECT 1").then(
            () => undefined,
            (error: unknown) => error,
          );
          if (lost) break;
          await sleep(50);
        }
        expect(String(lost)).toMatch(/not queryable|terminat/);
      } finally {
        client.release(lost instanceof Error ? lost : true);
      }

      expect(await store.read.accounts.count()).toBeGreaterThan(0);
      expect(await store.transaction((tx) => tx.accounts.count())).toBeGreaterThan(0);
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

describe("the plan of a long fault run", () => {
  test("when ten outages are drawn, then every kind is among them, each within its bounds, and the seed replays them", () => {
    const plan = planOutages(10, 42);

    expect(new Set(plan.map((o) => o.kind))).toEqual(new Set(["restart", "stop", "crash"]));
    for (const o of plan) {
      expect(o.leadMs).toBeGreaterThanOrEqual(300);
      expect(o.leadMs).toBeLessThan(1500);
      if (o.kind === "restart") expect(o.downMs).toBe(0);
      else expect(o.downMs).toBeGreaterThanOrEqual(o.kind === "stop" ? 1500 : 600);
      expect(o.downMs).toBeLessThan(o.kind === "stop" ? 4000 : 2000);
    }
    expect(planOutages(10, 42)).toEqual(plan);
    expect(planOutages(10, 43)).not.toEqual(plan);
    expect(planOutages(4, 1, ["restart"]).map((o) => o.kind)).toEqual(["restart", "restart", "restart", "restart"]);
  });

  test("when a run saw a death, a 500, a slow recovery or a broken ledger, then each is a problem of the run", () => {
    const limits = faultLimits(oneOfEach);
    const clean: FaultReport = {
      outages: [
        {
          ...oneOfEach[0]!,
          aliveDuring: [true, true],
          probeDefects: [],
          recoveryMs: [40, 30],
          aliveAfter: [true, true],
          invariants: [],
        },
      ],
      requests: 500,
      unavailable: { a: 10, b: 2 },
      statuses: { 201: 400, 503: 12 },
      defects: [],
      charges: 200,
      paid: 100,
      alive: [true, true],
      serving: [true, true],
      crashLines: [],
      invariants: [],
      durationMs: 9000,
    };
    const outage = clean.outages[0]!;
    const broken: FaultReport = {
      ...clean,
      outages: [{ ...outage, aliveAfter: [true, false], recoveryMs: [40, Number.POSITIVE_INFINITY] }],
      defects: ["charge falha-0-3: 500 {}"],
      alive: [true, false],
      serving: [true, false],
      invariants: ["ledger sums differ from the balance of acc_1"],
    };

    expect(faultProblems(clean, limits)).toEqual([]);
    expect(faultProblems(broken, limits)).toEqual([
      "outage 1 (restart): server B died",
      "outage 1 (restart): server B recovered in Infinity ms (budget 2000 ms)",
      "server B is not alive at the end",
      "server B's pid no longer holds its listening socket",
      "charge falha-0-3: 500 {}",
      "ledger sums differ from the balance of acc_1",
    ]);
    expect(faultProblems({ ...clean, unavailable: { a: 0, b: 0 } }, limits)).toEqual([
      "the load met no 503: no outage was seen",
    ]);
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
      recordKeyUse: (keyId, at) => memory.recordKeyUse(keyId, at),
      exportLeases: memory.exportLeases,
      requestLogs: memory.requestLogs,
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
