import { api } from "../../api/client";
import { type Page, useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";

// Payment links' reads as query options (key `[method, path, init]`) and their changes, each
// invalidating what it changed by key.

const list = (mode: Mode, page?: Page) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/payment-links", {
    params: { path: { mode }, ...(page ? { query: page } : {}) },
  });

const one = (mode: Mode, id: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/payment-links/{id}", { params: { path: { mode, id } } });

export const paymentLinkQueries = {
  list,
  one,
  /** The link's latest charges. */
  charges: (mode: Mode, id: string) =>
    api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions", {
      params: { path: { mode }, query: { paymentLinkId: id, limit: 20 } },
    }),
};

export function useCreatePaymentLink(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/payment-links", {
    onSuccess: () => invalidate(list(mode).queryKey),
  });
}

export function useDeactivatePaymentLink(mode: Mode, id: string) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/payment-links/{id}/deactivate", {
    onSuccess: () => invalidate(one(mode, id).queryKey, list(mode).queryKey),
  });
}
