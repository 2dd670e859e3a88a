import { api } from "../../api/client";
import type { Page } from "../../api/queries";
import { dayRangeQuery } from "../../lib/filters";
import type { Mode } from "../../lib/mode";

// The statement's read as query options (key `[method, path, init]`), and its CSV's address, for
// a period of Brasília days (`from`, `to`, both included).

export interface StatementPeriod {
  from?: string;
  to?: string;
}

const page = (mode: Mode, at?: Page, period: StatementPeriod = {}) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/statement", {
    params: { path: { mode }, ...(at ? { query: { ...dayRangeQuery(period.from, period.to), ...at } } : {}) },
  });

export const statementQueries = { page };

/** The CSV of the same period, every movement of it (the session cookie goes along: same origin). */
export function statementCsvHref(mode: Mode, period: StatementPeriod): string {
  const query = new URLSearchParams(dayRangeQuery(period.from, period.to)).toString();
  return `/dashboard/v1/modes/${mode}/statement.csv${query ? `?${query}` : ""}`;
}
