import { api } from "../../api/client";
import { type Page, useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";
import { type TransactionFilters, transactionQuery } from "../../lib/transactions";

// Transactions' reads as query options (key `[method, path, init]`), and what a change of one
// (a refund, a sandbox action) invalidates by key: the transaction and the mode's lists.

const list = (mode: Mode, page?: Page, filters: TransactionFilters = {}) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions", {
    params: { path: { mode }, ...(page ? { query: { ...transactionQuery(filters), ...page } } : {}) },
  });

const one = (mode: Mode, id: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions/{id}", { params: { path: { mode, id } } });

export const transactionQueries = { list, one };

/** A mutation's options that invalidate the transaction `id` and the mode's transaction lists. */
export function useTransactionChanged(mode: Mode, id: string) {
  const invalidate = useInvalidate();
  return { onSuccess: () => invalidate(one(mode, id).queryKey, list(mode).queryKey) };
}
