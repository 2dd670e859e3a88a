import pg from "pg";
import { sqlState } from "./errors.js";

/** What the store logs: a pool error (the database went away) and retried transactions. */
export interface StoreLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const silentLogger: StoreLogger = { warn: () => undefined, error: () => undefined };

/** How long one outage's lost idle connections share a single log line. */
const connectionLostQuietMs = 5_000;

/**
 * The listener for a pool's (or a checked-out client's) 'error' event: the connection is gone,
 * the pool dials anew. It logs the error alone (pg attaches its whole client to it, which a logger
 * would serialise), and once per outage: a restart drops every idle connection at the same moment.
 */
export function connectionLostListener(logger: StoreLogger): (error: Error) => void {
  let quietUntil = 0;
  let suppressed = 0;
  return (error) => {
    const now = Date.now();
    if (now < quietUntil) {
      suppressed++;
      return;
    }
    quietUntil = now + connectionLostQuietMs;
    logger.warn(
      { code: sqlState(error), reason: error.message, ...(suppressed > 0 ? { alsoLostBefore: suppressed } : {}) },
      "PostgreSQL connection lost; the pool dials anew",
    );
    suppressed = 0;
  };
}

export interface PoolOptions {
  /** Connections per process; default 10. */
  max?: number;
  logger?: StoreLogger;
  /** The connection class (pg's public `Client` option): tests pass a subclass that records statements. */
  Client?: typeof pg.Client;
}

/** An error of a connection that its borrower, or the pool, handles (see `createPool`). */
const ignoreHere = () => undefined;

/**
 * A pool for the store. Its 'error' listener keeps an idle connection that the server dropped
 * (a restart, a failover) from crashing the process: the pool discards it and dials anew.
 */
export function createPool(databaseUrl: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 15_000,
    idleTimeoutMillis: 30_000,
    application_name: "pix-charging-service",
    // Timestamps come back in UTC, the form `isoTimestamp` (sql.ts) reads without a Date.
    options: "-c TimeZone=UTC",
    ...(options.Client ? { Client: options.Client } : {}),
  });
  pool.on("error", connectionLostListener(options.logger ?? silentLogger));
  // The pool listens to a connection only while it is idle, and a borrower from when it adds its
  // own listener. A connection handed from one borrower to the next as the last answer is read
  // (the pool's queue runs inside that read of the socket) is between the two until the next
  // borrower's code runs: a shutdown's FATAL in the same packet was an 'error' event with nobody
  // listening, which ends the process. This listener is the connection's own from its first
  // moment: pg marks the connection unusable, so its next statement fails as a lost connection
  // (a 503, or the transaction's one retry on a fresh connection), and the pool drops it.
  pool.on("connect", (client) => client.on("error", ignoreHere));
  return pool;
}
