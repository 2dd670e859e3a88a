import { api } from "../../../api/client";
import { useInvalidate } from "../../../api/queries";
import type { Mode } from "../../../lib/mode";

// Webhook endpoints' reads as query options (key `[method, path, init]`) and their changes, each
// invalidating what it changed by key.

const list = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/webhook-endpoints", {
    params: { path: { mode }, query: { limit: 100 } },
  });

/** The endpoint's latest deliveries, with their attempts. */
const deliveries = (mode: Mode, id: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries", {
    params: { path: { mode, id }, query: { limit: 20 } },
  });

export const webhookQueries = { list, deliveries };

export function useCreateEndpoint(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/webhook-endpoints", {
    onSuccess: () => invalidate(list(mode).queryKey),
  });
}

export function useSendTestEvent(mode: Mode, id: string) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events", {
    onSuccess: () => invalidate(deliveries(mode, id).queryKey),
  });
}

export function useResendDelivery(mode: Mode, id: string) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries/{deliveryId}/resend", {
    onSuccess: () => invalidate(deliveries(mode, id).queryKey),
  });
}

export function useUpdateEndpoint(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("patch", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
    onSuccess: () => invalidate(list(mode).queryKey),
  });
}

/** Its deliveries are not refetched: they are gone with it (a refetch would answer 404). */
export function useDeleteEndpoint(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("delete", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}", {
    onSuccess: () => invalidate(list(mode).queryKey),
  });
}
