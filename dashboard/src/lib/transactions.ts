import { searchLength, transactionStatuses } from "../../../generated/rules";
import { dayRangeQuery, isDay, oneOf } from "./filters";
import type { Mode } from "./mode";

// The transaction list's filters as the address keeps them (`?situacao=PAID&de=2026-11-01&ate=
// 2026-11-30&link=plk_…&cliente=cus_…&busca=529.982.247-25`), as the API's query, and as the CSV
// export's address for the same view.

export { transactionStatuses };
export type TransactionStatus = (typeof transactionStatuses)[number];

export interface TransactionFilters {
  status?: TransactionStatus;
  /** First Brasília day, `YYYY-MM-DD`. */
  from?: string;
  /** Last Brasília day, included. */
  to?: string;
  paymentLinkId?: string;
  /** Only this customer's charges (`cus_…`). */
  customerId?: string;
  /** The search box's text: a charge's id or its payer's CPF/CNPJ (the server decides). */
  search?: string;
  /** `DUE_DATE`: only charges with a due date (`?tipo=vencimento`). */
  kind?: "DUE_DATE";
}

/** The API's bound on the search text (`search`, spec/dashboard/money.tsp). */
export const searchMaxLength = searchLength.max;

/** The filters of an address; anything unknown or malformed is left out. */
export function filtersFromAddress(search: URLSearchParams): TransactionFilters {
  const filters: TransactionFilters = {};
  const status = oneOf(search, "situacao", transactionStatuses);
  if (status) filters.status = status;
  const from = search.get("de");
  if (isDay(from)) filters.from = from;
  const to = search.get("ate");
  if (isDay(to)) filters.to = to;
  const link = search.get("link");
  if (link && /^plk_[A-Za-z0-9]{1,60}$/.test(link)) filters.paymentLinkId = link;
  const customer = search.get("cliente");
  if (customer && /^cus_[A-Za-z0-9]{1,60}$/.test(customer)) filters.customerId = customer;
  const text = search.get("busca")?.trim();
  if (text && text.length <= searchMaxLength) filters.search = text;
  if (search.get("tipo") === "vencimento") filters.kind = "DUE_DATE";
  return filters;
}

/** The address's words for `filters` (the page's cursor is not a filter and is not kept). */
export function addressFromFilters(filters: TransactionFilters): URLSearchParams {
  const search = new URLSearchParams();
  if (filters.status) search.set("situacao", filters.status);
  if (filters.from) search.set("de", filters.from);
  if (filters.to) search.set("ate", filters.to);
  if (filters.paymentLinkId) search.set("link", filters.paymentLinkId);
  if (filters.customerId) search.set("cliente", filters.customerId);
  if (filters.search) search.set("busca", filters.search);
  if (filters.kind) search.set("tipo", "vencimento");
  return search;
}

/** The API's query for `filters`: Brasília days become instants. */
export function transactionQuery(filters: TransactionFilters) {
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.paymentLinkId ? { paymentLinkId: filters.paymentLinkId } : {}),
    ...(filters.customerId ? { customerId: filters.customerId } : {}),
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...dayRangeQuery(filters.from, filters.to),
  };
}

/** The CSV export of the same view, every page of it (the session cookie goes along: same origin). */
export function transactionsCsvHref(mode: Mode, filters: TransactionFilters): string {
  const query = new URLSearchParams(transactionQuery(filters)).toString();
  return `/dashboard/v1/modes/${mode}/transactions.csv${query ? `?${query}` : ""}`;
}

/** The first and last Brasília days of the month of `day`. */
export function monthOf(day: string): { from: string; to: string } {
  const [year, month] = day.split("-").map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const mm = String(month).padStart(2, "0");
  return { from: `${year}-${mm}-01`, to: `${year}-${mm}-${String(last).padStart(2, "0")}` };
}
