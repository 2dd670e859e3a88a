import { api } from "../../api/client";
import { useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";

// Charges with a due date (issue 38): the create form's preview (a POST that keeps nothing) and
// the creation, which invalidates the mode's transaction lists by key.

const transactions = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/transactions", { params: { path: { mode } } });

export function usePreviewDueDateCharge() {
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/charges/due-date/preview");
}

export function useCreateDueDateCharge(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/charges/due-date", {
    onSuccess: () => invalidate(transactions(mode).queryKey),
  });
}
