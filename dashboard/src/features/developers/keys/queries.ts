import { api } from "../../../api/client";
import { useInvalidate } from "../../../api/queries";
import type { Mode } from "../../../lib/mode";

// API keys' reads as query options (key `[method, path, init]`) and their changes, each
// invalidating the mode's key lists (this screen's and the balance's limits) by key.

const list = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/api-keys", { params: { path: { mode }, query: { limit: 100 } } });

/** Every cached key list of the mode, whatever its query. */
const anyList = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/api-keys", { params: { path: { mode } } });

export const keyQueries = { list };

function useKeysChanged(mode: Mode) {
  const invalidate = useInvalidate();
  return { onSuccess: () => invalidate(anyList(mode).queryKey) };
}

export const useCreateKey = (mode: Mode) =>
  api.useMutation("post", "/dashboard/v1/modes/{mode}/api-keys", useKeysChanged(mode));

export const useUpdateKey = (mode: Mode) =>
  api.useMutation("patch", "/dashboard/v1/modes/{mode}/api-keys/{id}", useKeysChanged(mode));

export const useRollKey = (mode: Mode) =>
  api.useMutation("post", "/dashboard/v1/modes/{mode}/api-keys/{id}/roll", useKeysChanged(mode));

export const useRevokeKey = (mode: Mode) =>
  api.useMutation("post", "/dashboard/v1/modes/{mode}/api-keys/{id}/revoke", useKeysChanged(mode));
