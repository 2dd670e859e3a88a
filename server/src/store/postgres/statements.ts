import type { PageRequest, PageResult } from "../../domain/core/model.js";
import { type KeyWithAccount, type TransactionFilter, UnknownCursorError } from "../../domain/ports/store.js";
import { accountsTable, apiKeysTable, jsonRow, perTable, type TableDef, toRecord } from "./rows.js";
import { execute, type Queryable, query, type Row } from "./sql.js";

/** A statement's row holding one table row as JSON (`jsonRow`). */
type JsonRow = { row: Row };

export async function selectOne<R>(
  db: Queryable,
  def: TableDef<R>,
  where: string,
  values: unknown[],
): Promise<R | null> {
  const text = perTable(
    def,
    `one:${where}`,
    () => `SELECT ${jsonRow(def)} AS row FROM ${def.name} WHERE ${where} LIMIT 1`,
  );
  const rows = await query<JsonRow>(db, text, values);
  return rows[0] ? toRecord(def, rows[0].row) : null;
}

export async function selectMany<R>(
  db: Queryable,
  def: TableDef<R>,
  where: string,
  values: unknown[],
  orderBy: string,
): Promise<R[]> {
  const rows = await query<JsonRow>(
    db,
    `SELECT ${jsonRow(def)} AS row FROM ${def.name} WHERE ${where} ORDER BY ${orderBy}`,
    values,
  );
  return rows.map(({ row }) => toRecord(def, row));
}

/**
 * `insertRow(db, def, record)` and `selectMany(db, selected, where, values, orderBy)` in one
 * statement (a data-modifying WITH): one round trip where they were two. `where` numbers its
 * parameters from $1 as `selectMany`'s does; the inserted values follow them. The select does not
 * see the inserted row (one snapshot), so `selected` is another table.
 */
export async function insertRowThenSelect<R, S>(
  db: Queryable,
  def: TableDef<R>,
  record: R,
  selected: TableDef<S>,
  where: string,
  values: unknown[],
  orderBy: string,
): Promise<S[]> {
  const columns = def.columns.map(([column]) => column);
  const placeholders = columns.map((_c, i) => `$${values.length + i + 1}`);
  const rows = await query<JsonRow>(
    db,
    `WITH inserted AS (INSERT INTO ${def.name} (${columns.join(", ")}) VALUES (${placeholders.join(", ")}))
     SELECT ${jsonRow(selected)} AS row FROM ${selected.name} WHERE ${where} ORDER BY ${orderBy}`,
    [...values, ...def.columns.map(([, value]) => value(record))],
  );
  return rows.map(({ row }) => toRecord(selected, row));
}

export async function insertRow<R>(db: Queryable, def: TableDef<R>, record: R): Promise<void> {
  const columns = def.columns.map(([column]) => column);
  const placeholders = columns.map((_c, i) => `$${i + 1}`);
  await execute(
    db,
    `INSERT INTO ${def.name} (${columns.join(", ")}) VALUES (${placeholders.join(", ")})`,
    def.columns.map(([, value]) => value(record)),
  );
}

/**
 * Inserts `records` in one statement (one round trip: the reconciler's page), in order. Its text
 * depends on how many there are, so it is planned each time rather than prepared; a page is at
 * most a few hundred rows, far below the 65,535 parameters of a statement.
 */
export async function insertRows<R>(db: Queryable, def: TableDef<R>, records: readonly R[]): Promise<void> {
  if (records.length === 0) return;
  const columns = def.columns.map(([column]) => column);
  const rows = records.map((_r, row) => `(${columns.map((_c, i) => `$${row * columns.length + i + 1}`).join(", ")})`);
  await execute(
    db,
    `INSERT INTO ${def.name} (${columns.join(", ")}) VALUES ${rows.join(", ")}`,
    records.flatMap((record) => def.columns.map(([, value]) => value(record))),
    { prepare: false },
  );
}

/** Replaces every column of the row with this `id`; like the memory store, a missing row throws. */
export async function updateRow<R extends { id: string }>(db: Queryable, def: TableDef<R>, record: R): Promise<void> {
  const rest = def.columns.filter(([column]) => column !== "id");
  const sets = rest.map(([column], i) => `${column} = $${i + 2}`);
  const changed = await execute(db, `UPDATE ${def.name} SET ${sets.join(", ")} WHERE id = $1`, [
    record.id,
    ...rest.map(([, value]) => value(record)),
  ]);
  if (changed === 0) throw new Error(`no row ${record.id}`);
}

/** Each column's type as a cast names it (`timestamp(3) with time zone`), per table, read once. */
const columnTypes = new Map<string, Promise<Map<string, string>>>();
function columnTypesOf(db: Queryable, table: string): Promise<Map<string, string>> {
  let types = columnTypes.get(table);
  if (!types) {
    types = query<{ name: string; type: string }>(
      db,
      `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
       WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
      [table],
    ).then((rows) => new Map(rows.map((row) => [row.name, row.type])));
    types.catch(() => columnTypes.delete(table));
    columnTypes.set(table, types);
  }
  return types;
}

/**
 * `updateRow` for many rows in one statement (the reconciler's page): every column of each
 * record's row replaced, from a VALUES list cast to the columns' types. The ids must be distinct;
 * a missing row throws, as `updateRow` does.
 */
export async function updateRows<R extends { id: string }>(
  db: Queryable,
  def: TableDef<R>,
  records: readonly R[],
): Promise<void> {
  if (records.length === 0) return;
  const types = await columnTypesOf(db, def.name);
  const columns = def.columns.map(([column]) => column);
  const cast = (column: string) => {
    const type = types.get(column);
    if (!type) throw new Error(`${def.name}.${column} is not a column`);
    return type;
  };
  const rows = records.map(
    (_r, row) => `(${columns.map((column, i) => `$${row * columns.length + i + 1}::${cast(column)}`).join(", ")})`,
  );
  const sets = columns.filter((column) => column !== "id").map((column) => `${column} = v.${column}`);
  const changed = await execute(
    db,
    `UPDATE ${def.name} AS t SET ${sets.join(", ")} FROM (VALUES ${rows.join(", ")}) AS v(${columns.join(", ")})
     WHERE t.id = v.id`,
    records.flatMap((record) => def.columns.map(([, value]) => value(record))),
    { prepare: false },
  );
  if (changed !== records.length) throw new Error(`${records.length - changed} rows of ${def.name} missing`);
}

/** Which rows a list holds: the rows of its scope that pass its filters. */
export interface ListWhere {
  /**
   * The list's scope (its account and mode, its parent), on the first parameters (`$1`…), whose
   * values are `values`. A cursor must name a row of it.
   */
  scope: string;
  values: unknown[];
  /**
   * The narrowings (` AND …`, or ""), pushing their values after the scope's. A cursor need not
   * pass them: a row that left them since its page was read still marks the place.
   */
  filters?: (values: unknown[]) => string;
}

/**
 * The memory store's `pageOf` in SQL: newest first on (created_at, id), the rows of the list
 * after the cursor, which must name a row of the list's scope (else `UnknownCursorError`);
 * `hasMore` when anything follows the page.
 */
export async function pageQuery<R>(
  db: Queryable,
  def: TableDef<R>,
  list: ListWhere,
  page: PageRequest,
  options: {
    /**
     * Whether the filters narrow by values whose selectivity varies (a status, a date range, a
     * flag): such a page is planned on every call (see `StatementOptions`). A page of one scope,
     * or of equalities on unique-enough columns, has one best plan and is prepared. Default:
     * whether any filter applies.
     */
    selective?: boolean;
  } = {},
): Promise<PageResult<R>> {
  const args = [...list.values];
  const filters = list.filters?.(args) ?? "";
  let after = "";
  if (page.startingAfter !== undefined) {
    const cursor = await query<{ createdAt: string; id: string }>(
      db,
      `SELECT created_at AS "createdAt", id FROM ${def.name} WHERE (${list.scope}) AND id = $${list.values.length + 1}`,
      [...list.values, page.startingAfter],
    );
    const at = cursor[0];
    if (!at) throw new UnknownCursorError();
    args.push(at.id, at.createdAt);
    after = `AND (created_at, id COLLATE "C") < ($${args.length}::timestamptz, $${args.length - 1}::text COLLATE "C")`;
  }
  args.push(page.limit + 1);
  const where = `(${list.scope})${filters}`;
  const text = perTable(
    def,
    `page:${where}:${after}:${args.length}`,
    () => `SELECT ${jsonRow(def)} AS row FROM ${def.name} WHERE ${where} ${after}
     ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${args.length}`,
  );
  const rows = await query<JsonRow>(db, text, args, { prepare: !(options.selective ?? filters !== "") });
  return {
    items: rows.slice(0, page.limit).map(({ row }) => toRecord(def, row)),
    hasMore: rows.length > page.limit,
  };
}

/** The SQL of `statusMatches` (port.ts): `EXPIRED` includes `WAITING_PAYMENT` past `expiresAt`. */
export function transactionFilterSql(filter: TransactionFilter, values: unknown[]): string {
  const clauses: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.status !== undefined) {
    if (filter.status === "EXPIRED") {
      const now = param(filter.now);
      clauses.push(`(status = 'EXPIRED' OR (status = 'WAITING_PAYMENT' AND expires_at <= ${now}::timestamptz))`);
    } else if (filter.status === "WAITING_PAYMENT") {
      const now = param(filter.now);
      clauses.push(`(status = 'WAITING_PAYMENT' AND expires_at > ${now}::timestamptz)`);
    } else {
      clauses.push(`status = ${param(filter.status)}`);
    }
  }
  if (filter.paymentLinkId !== undefined) clauses.push(`payment_link_id = ${param(filter.paymentLinkId)}`);
  if (filter.recurrenceId !== undefined) clauses.push(`recurrence_id = ${param(filter.recurrenceId)}`);
  if (filter.id !== undefined) clauses.push(`id = ${param(filter.id)}`);
  if (filter.customerId !== undefined) clauses.push(`customer ->> 'id' = ${param(filter.customerId)}`);
  if (filter.dueDateCharge !== undefined) clauses.push("due_date_charge IS NOT NULL");
  // `dispute IS NOT NULL` in either case: the condition of the partial index the dispute list walks.
  if (filter.dispute !== undefined) clauses.push("dispute IS NOT NULL");
  if (filter.dispute !== undefined && filter.dispute !== "ANY") {
    clauses.push(`dispute ->> 'status' = ${param(filter.dispute)}`);
  }
  if (filter.createdFrom !== undefined) clauses.push(`created_at >= ${param(filter.createdFrom)}::timestamptz`);
  if (filter.createdTo !== undefined) clauses.push(`created_at < ${param(filter.createdTo)}::timestamptz`);
  return clauses.length ? ` AND ${clauses.join(" AND ")}` : "";
}

/**
 * The row versions of a key and its account, as text: each row's `xmin`, the transaction that
 * wrote the version read. Any UPDATE writes a new version with a new `xmin` (freezing keeps it),
 * so the text changes whenever anything `authorizeKey` decides on changes.
 */
const keyVersionSql = `k.xmin::text || ':' || coalesce(a.xmin::text, '-')`;

/** The key with its account, out of a row selected by `keyWithAccountSelect`. */
export function keyWithAccountOf(row: Row): KeyWithAccount {
  return {
    key: toRecord(apiKeysTable, row.key as Row),
    account: row.account === null ? null : toRecord(accountsTable, row.account as Row),
    version: row.version as string,
  };
}

/**
 * The key whose digest (or, with `previous_digest`, whose secret before its last roll) is `$1`,
 * with its account (NULL when the account is gone) and their version, each row as JSON
 * (`jsonRow`): `keyWithAccountOf` reads a row of it.
 */
export const keyWithAccountSelect = (column: "digest" | "previous_digest" = "digest") =>
  perTable(
    apiKeysTable,
    `with-account:${column}`,
    () => `SELECT ${jsonRow(apiKeysTable, "k.")} AS key,
       CASE WHEN a.id IS NULL THEN NULL ELSE ${jsonRow(accountsTable, "a.")} END AS account,
       ${keyVersionSql} AS version
     FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id WHERE k.${column} = $1 LIMIT 1`,
  );

/**
 * A condition that holds while the key whose digest is `$digest` and its account are still the
 * versions `$version` names (`KeyWithAccount.version`): added to a statement's WHERE, its rows
 * come back only if, in that statement's own snapshot, nothing about the key has changed.
 */
export const keyUnchangedSql = (digest: string, version: string) =>
  `EXISTS (SELECT 1 FROM api_keys k JOIN accounts a ON a.id = k.account_id
           WHERE k.digest = ${digest} AND ${keyVersionSql} = ${version})`;
