import type pg from "pg";
import type { Store, StoreReads, StoreTx } from "../../domain/ports/store.js";
import type { ExportLeases } from "../../domain/ports/export-leases.js";
import type { RequestLogStore } from "../../domain/ports/request-log-store.js";
import { DeliveryWatchers } from "../delivery-watchers.js";
import { isConnectionError, sqlState, toStoreError } from "./connection/errors.js";
import { DeliveryListener } from "./connection/delivery-listener.js";
import { pgExportLeases } from "./export-leases.js";
import { pgRequestLogs } from "./request-logs.js";
import { connectionLostListener, silentLogger, type StoreLogger } from "./connection/pool.js";
import { reads } from "./reads.js";
import { execute, type Queryable, retryingReads } from "./sql.js";
import { writes } from "./writes.js";

/** The server process behind a connection (pg sets it at connect), or null before that. */
function backendPid(client: pg.PoolClient): number | null {
  const pid = (client as unknown as { processID?: unknown }).processID;
  return typeof pid === "number" ? pid : null;
}

/**
 * One pooled connection's transactions: the store's statements (`writes`) are bound to it once,
 * at its first transaction, and each transaction resets what it has sent. Building them anew for
 * every transaction (some 150 closures) was a twentieth of the server's time on a PostgreSQL
 * create. BEGIN travels with the transaction's first statement, one round trip fewer: a lock first
 * (most writes start with `lockScope`) is sent with it as one simple query; any other statement
 * right after it. Work that runs no statement sends nothing.
 */
class ConnectionSession {
  readonly tx: StoreTx;
  begun = false;
  /** The BEGIN on its way, once sent. */
  private beginning: Promise<unknown> | null = null;
  /** What the BEGIN met, as pg threw it (the statement helpers map errors for the domain). */
  beginError: unknown = undefined;
  /** Whether the transaction queued a webhook delivery (the watchers hear of it after COMMIT). */
  queued = false;
  /**
   * The transaction's last statement, settled or not. A connection runs one statement at a time,
   * and the domain may read in parallel inside a transaction (`Promise.all` of two reads on `tx`):
   * each statement waits here for the one before it to settle. pg queued them itself, deprecated
   * since pg 8.13 ("Calling client.query() when the client is already executing a query", removed
   * in pg 9).
   */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: pg.PoolClient) {
    /** `statement` once the statements sent before it have settled. */
    const inTurn = <T>(statement: () => Promise<T>): Promise<T> => {
      const run = this.last.then(statement);
      this.last = run.catch(() => undefined);
      return run;
    };
    const connection: Queryable = {
      query: (config) =>
        inTurn(async () => {
          if (!this.begun) await this.begin("BEGIN");
          return client.query(config);
        }),
    };
    const lock = (key: string) =>
      inTurn(async () => {
        if (!/^-?\d+$/.test(key)) throw new Error(`not an advisory lock key: ${key}`);
        const statement = `SELECT pg_advisory_xact_lock(${key}::bigint)`;
        if (this.begun || this.beginning) {
          if (!this.begun) await this.begin("BEGIN");
          await client.query({ text: statement });
          return;
        }
        await this.begin(`BEGIN; ${statement}`);
      });
    const tx = writes(connection, lock);
    this.tx = {
      ...tx,
      deliveries: {
        ...tx.deliveries,
        insert: (delivery) => {
          this.queued = true;
          return tx.deliveries.insert(delivery);
        },
      },
    };
  }

  /** Once every statement sent so far has settled (before COMMIT or ROLLBACK). */
  settled(): Promise<unknown> {
    return this.last;
  }

  /** Before each transaction on the connection. */
  reset(): void {
    this.last = Promise.resolve();
    this.begun = false;
    this.beginning = null;
    this.beginError = undefined;
    this.queued = false;
  }

  private async begin(text: string): Promise<void> {
    this.beginning ??= this.client.query(text).catch((error: unknown) => {
      this.beginError = error;
      throw error;
    });
    await this.beginning;
    this.begun = true;
  }
}

/** SQLSTATEs after which the whole transaction may simply run again. */
const retryableStates = new Set(["40001", "40P01"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PostgresStoreOptions {
  logger?: StoreLogger;
  /** How often a transaction runs before a serialization failure or deadlock is final; default 5. */
  maxAttempts?: number;
}

/**
 * The production store (docs/decisions/0003-two-stores-memory-and-postgresql.md). Every `transaction` is one PostgreSQL transaction at READ
 * COMMITTED on one pooled connection; `lockScope` takes a transaction-scoped advisory lock per
 * account and mode, so the balance read that follows it already sees every earlier committed debit.
 *
 * A lost database (restart, crash, network) never ends the process: every statement that meets it
 * throws `SERVICE_UNAVAILABLE` (see `toStoreError`), and the pool dials anew for the next one.
 */
export class PostgresStore implements Store {
  readonly read: StoreReads;
  readonly exportLeases: ExportLeases;
  readonly requestLogs: RequestLogStore;
  private readonly logger: StoreLogger;
  private readonly maxAttempts: number;
  private readonly connectionLost: (error: Error) => void;
  private readonly watchers = new DeliveryWatchers();
  private listener: DeliveryListener | null = null;
  /** The pool, a statement repeated once on a lost connection (`retryingReads`). */
  private readonly db: Queryable;
  /** The backend PIDs of this pool's open connections (their commits notify the watchers at once). */
  private readonly ownBackends = new Set<number>();
  /** Per pooled connection, its transactions' statements (`ConnectionSession`). */
  private readonly sessions = new WeakMap<pg.PoolClient, ConnectionSession>();

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresStoreOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.connectionLost = connectionLostListener(this.logger);
    this.db = retryingReads(pool);
    this.read = reads(this.db);
    this.exportLeases = pgExportLeases(pool);
    this.requestLogs = pgRequestLogs(pool);
    if (pool.listenerCount("error") === 0) pool.on("error", this.connectionLost);
    pool.on("connect", (client) => {
      const pid = backendPid(client);
      if (pid !== null) this.ownBackends.add(pid);
    });
    pool.on("remove", (client) => {
      const pid = backendPid(client);
      if (pid !== null) this.ownBackends.delete(pid);
    });
  }

  /**
   * BEGIN, the work, COMMIT; ROLLBACK when it throws. A serialization failure (40001) or a
   * deadlock (40P01) runs the whole work again, up to `maxAttempts` runs, after a jittered pause
   * taken with the connection back in the pool. A BEGIN that meets a lost connection (one the
   * server closed while it sat in the pool) runs once more on a fresh one: nothing has run yet.
   * BEGIN is sent with the first statement (see `ConnectionSession`).
   */
  async transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    let redialed = false;
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw toStoreError(error);
      }
      // While checked out, a client has no listener of the pool's: a connection the server drops
      // between two statements would be an unhandled 'error' event, which ends the process.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
        this.connectionLost(error);
      };
      client.on("error", onError);
      let broken: Error | undefined;
      const session = this.sessionOf(client);
      session.reset();
      try {
        const result = await work(session.tx);
        await session.settled();
        if (session.begun) await client.query("COMMIT");
        // This process's workers at once; the others hear the trigger's NOTIFY.
        if (session.queued && this.watchers.size > 0) this.watchers.notify();
        return result;
      } catch (error) {
        // A read the work started beside the one that threw may still be on the connection.
        await session.settled();
        try {
          await client.query("ROLLBACK");
        } catch (rollbackError) {
          // The connection itself failed: the pool must not hand it out again.
          broken = rollbackError as Error;
        }
        if (!session.begun && !redialed && isConnectionError(session.beginError ?? error)) {
          broken = error as Error;
          redialed = true;
          attempt--;
          continue;
        }
        const state = sqlState(error);
        if (!state || !retryableStates.has(state) || attempt >= this.maxAttempts) throw toStoreError(error);
        this.logger.warn({ code: state, attempt }, "PostgreSQL transaction retried");
      } finally {
        client.removeListener("error", onError);
        client.release(broken ?? lost);
      }
      await sleep(Math.random() * 10 * 2 ** attempt);
    }
  }

  /** The statements of `client`'s transactions, made at its first one. */
  private sessionOf(client: pg.PoolClient): ConnectionSession {
    let session = this.sessions.get(client);
    if (!session) {
      session = new ConnectionSession(client);
      this.sessions.set(client, session);
    }
    return session;
  }

  /**
   * One statement, outside any transaction, in a table of its own (`api_key_uses`): a key's row,
   * and so its version, never changes for a use. Repeating it is harmless (the later instant wins).
   */
  async recordKeyUse(keyId: string, at: string): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO api_key_uses (key_id, last_used_at) VALUES ($1, $2::timestamptz)
       ON CONFLICT (key_id) DO UPDATE SET last_used_at = greatest(api_key_uses.last_used_at, excluded.last_used_at)`,
      [keyId, at],
    );
  }

  /** One round trip: `/ready` asks it; a lost database becomes SERVICE_UNAVAILABLE. */
  async ping(): Promise<void> {
    try {
      await this.pool.query("SELECT 1");
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /**
   * After each commit that queued deliveries: at once for a commit of this process, through
   * LISTEN/NOTIFY for the others' (one extra connection, opened with the first listener).
   */
  watchDeliveries(listener: () => void): () => void {
    const remove = this.watchers.add(listener);
    // A commit of this pool has already called the watchers (see `transaction`); its NOTIFY would
    // only start a second, empty pass of every worker here.
    this.listener ??= new DeliveryListener(
      this.pool.options,
      () => this.watchers.notify(),
      this.logger,
      (pid) => this.ownBackends.has(pid),
    );
    return () => {
      remove();
      if (this.watchers.size === 0 && this.listener) {
        void this.listener.close();
        this.listener = null;
      }
    };
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = null;
    await this.pool.end();
  }
}
