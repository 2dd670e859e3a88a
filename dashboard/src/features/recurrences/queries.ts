import { api } from "../../api/client";
import { type Page, useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";
import type { RecurrenceStatus } from "./labels";

// Recurrences' reads as query options (key `[method, path, init]`) and their changes, each
// invalidating by key what it changed: the recurrence, the mode's lists, and its charges (which
// live in the transaction list, `recurrenceId`).

const list = (mode: Mode, page?: Page, filters: { status?: RecurrenceStatus; customerId?: string } = {}) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/recurrences", {
    params: { path: { mode }, ...(page ? { query: { ...filters, ...page } } : {}) },
  });

const one = (mode: Mode, id: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/recurrences/{id}", { params: { path: { mode, id } } });

/** Every transaction list of the mode (the recurrence's charges are one of them). */
const transactions = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions", { params: { path: { mode } } });

export const recurrenceQueries = {
  list,
  one,
  /** The recurrence's charges: each cycle's, and a journey 3 immediate charge (at most 100). */
  charges: (mode: Mode, id: string) =>
    api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions", {
      params: { path: { mode }, query: { recurrenceId: id, limit: 100 } },
    }),
  /** A customer's recurrences, newest first. */
  ofCustomer: (mode: Mode, customerId: string) => list(mode, { limit: 20 }, { customerId }),
};

/** Options that invalidate the recurrence `id`, the mode's recurrence lists and its transactions. */
export function useRecurrenceChanged(mode: Mode, id: string) {
  const invalidate = useInvalidate();
  return {
    onSuccess: () => invalidate(one(mode, id).queryKey, list(mode).queryKey, transactions(mode).queryKey),
  };
}

export function useCreateRecurrence(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/recurrences", {
    onSuccess: () => invalidate(list(mode).queryKey),
  });
}
