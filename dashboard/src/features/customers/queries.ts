import { api } from "../../api/client";
import { type Page, useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";

// Customers' reads as query options (key `[method, path, init]`) and the change of their notes,
// invalidating the customer and the list by key.

const list = (mode: Mode, page?: Page, document?: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/customers", {
    params: { path: { mode }, ...(page ? { query: { ...page, ...(document ? { document } : {}) } } : {}) },
  });

const one = (mode: Mode, id: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/customers/{id}", { params: { path: { mode, id } } });

export const customerQueries = {
  list,
  one,
  /** The customer's newest `limit` charges. */
  charges: (mode: Mode, customerId: string, limit: number) =>
    api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions", {
      params: { path: { mode }, query: { customerId, limit } },
    }),
};

export function useUpdateCustomerNotes(mode: Mode, id: string) {
  const invalidate = useInvalidate();
  return api.useMutation("patch", "/dashboard/v1/modes/{mode}/customers/{id}/notes", {
    onSuccess: () => invalidate(one(mode, id).queryKey, list(mode).queryKey),
  });
}
