import { api } from "../../api/client";
import { useInvalidate } from "../../api/queries";

// The settings' shared reads as query options (key `[method, path, init]`) and the team's changes,
// each invalidating what it changed by key.

export const settingsQueries = {
  members: () => api.queryOptions("get", "/dashboard/v1/team/members"),
  invitations: () => api.queryOptions("get", "/dashboard/v1/team/invitations"),
  account: () => api.queryOptions("get", "/dashboard/v1/account"),
};

export function useInviteMember() {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/team/invitations", {
    onSuccess: () => invalidate(settingsQueries.invitations().queryKey),
  });
}

export function useRevokeInvitation() {
  const invalidate = useInvalidate();
  return api.useMutation("delete", "/dashboard/v1/team/invitations/{id}", {
    onSuccess: () => invalidate(settingsQueries.invitations().queryKey),
  });
}

export function useChangeMemberRole() {
  const invalidate = useInvalidate();
  return api.useMutation("patch", "/dashboard/v1/team/members/{id}", {
    onSuccess: () => invalidate(settingsQueries.members().queryKey),
  });
}

export function useRemoveMember() {
  const invalidate = useInvalidate();
  return api.useMutation("delete", "/dashboard/v1/team/members/{id}", {
    onSuccess: () => invalidate(settingsQueries.members().queryKey),
  });
}

export function useRequestVerification() {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/account/verification", {
    onSuccess: () => invalidate(settingsQueries.account().queryKey),
  });
}
