import pg from "pg";
import { isConnectionError, toStoreError } from "./connection/errors.js";

// Values in and out. BIGINT becomes a JS number (refused past 2^53), timestamptz an ISO string
// with milliseconds exactly as `Date#toISOString` writes it, json a value (whole rows are read as
// one: `jsonRow` in rows.ts). Given per query, so a pool made elsewhere (or the global `pg.types`)
// cannot change what the store returns.

const INT8 = 20;
const JSON_OID = 114;
const TIMESTAMPTZ = 1184;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ) as (value: string) => Date;

/**
 * A timestamptz as `Date#toISOString` writes it. In a session whose time zone is UTC (the pool
 * sets it) PostgreSQL writes `2026-11-23 16:38:33.339+00`, with the fraction trimmed or absent:
 * that text is rearranged directly. Any other form (another zone or date style, a year past 9999)
 * goes through pg's parser and a Date. Parsing each timestamp through a Date was a tenth of the
 * server's time on a PostgreSQL list.
 */
export function isoTimestamp(value: string): string {
  const n = value.length;
  if (
    n >= 22 &&
    n <= 26 &&
    value.charCodeAt(4) === 45 && // "-"
    value.charCodeAt(10) === 32 && // " "
    value.endsWith("+00") &&
    (n === 22 || value.charCodeAt(19) === 46) // "." before a fraction
  ) {
    const fraction = n === 22 ? "" : value.slice(20, n - 3);
    return `${value.slice(0, 10)}T${value.slice(11, 19)}.${(fraction + "000").slice(0, 3)}Z`;
  }
  const at = parseTimestamp(value);
  if (Number.isNaN(at.getTime())) throw new RangeError(`timestamp ${value} has no ISO form`);
  return at.toISOString();
}

/** A BIGINT as a JS number, refused past 2^53. */
function safeInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`BIGINT ${value} is beyond a safe JS integer`);
  return n;
}

const storeTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8) return safeInteger;
    if (oid === TIMESTAMPTZ) return isoTimestamp;
    if (oid === JSON_OID) return JSON.parse;
    return pg.types.getTypeParser(oid, format ?? "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

export type Row = Record<string, unknown>;
/** A pool or one of its connections: whatever runs a statement. */
export interface Queryable {
  query<R extends Row>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/**
 * The pool for reads outside a transaction: a statement that meets a lost connection runs once more
 * on a fresh one. Right after a database restart the pool may still hand out an idle connection the
 * server has already closed (its 'error' event not yet handled); a read is safe to repeat. A
 * database still away fails the second time too.
 */
export function retryingReads(pool: pg.Pool): Queryable {
  return {
    async query<R extends Row>(config: pg.QueryConfig) {
      try {
        return await pool.query<R>(config);
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        return pool.query<R>(config);
      }
    },
  };
}

/**
 * Statements are prepared once per connection and then only bound and executed: PostgreSQL skips
 * parsing and planning, most of its work for the store's short statements. Every text the store
 * sends carries its values as parameters, so the texts are a bounded set (one per statement and
 * filter combination); past `maxPrepared` of them, new ones run unprepared anyway. A statement
 * whose best plan depends on its values (a list filtered by status or dates: how many rows match
 * decides between indexes) is sent with `{ prepare: false }` and planned each time; a generic plan
 * of a prepared statement does not see the values.
 */
const preparedNames = new Map<string, string>();
const maxPrepared = 500;

export interface StatementOptions {
  /** Prepare once per connection (default), or parse and plan on every call. */
  prepare?: boolean;
}

function statement(text: string, values: unknown[], options: StatementOptions): pg.QueryConfig {
  if (options.prepare === false) return { text, values, types: storeTypes };
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < maxPrepared) {
    name = `pix_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name === undefined ? { text, values, types: storeTypes } : { name, text, values, types: storeTypes };
}

/** The rows of one statement; a lost connection throws `SERVICE_UNAVAILABLE` (`toStoreError`). */
export async function query<R extends Row = Row>(
  db: Queryable,
  text: string,
  values: unknown[] = [],
  options: StatementOptions = {},
): Promise<R[]> {
  try {
    const result = await db.query<R>(statement(text, values, options));
    return result.rows;
  } catch (error) {
    throw toStoreError(error);
  }
}

/** How many rows one statement changed; a lost connection throws as `query` does. */
export async function execute(
  db: Queryable,
  text: string,
  values: unknown[] = [],
  options: StatementOptions = {},
): Promise<number> {
  try {
    const result = await db.query(statement(text, values, options));
    return result.rowCount ?? 0;
  } catch (error) {
    throw toStoreError(error);
  }
}

export const json = (value: unknown): string => JSON.stringify(value ?? null);
export const jsonOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : json(value);
