import type { components } from "../../../../generated/dashboard-api.js";
import { byUser, changedFields, recordAuditIfChanged } from "../audit/index.js";
import type { DomainDeps } from "../deps.js";
import { DomainError } from "../core/errors.js";
import type { DashboardActor } from "../identity/index.js";
import { noticesOf, presentNotices } from "./model.js";

// The session's user reads and changes its own e-mail notices (GET/PATCH /dashboard/v1/me/notices).

type Schemas = components["schemas"];

const fields = ["payments", "withdrawals", "disputes", "newDevice"] as const;

export function noticePreferenceUseCases(deps: DomainDeps) {
  const { store, clock } = deps;
  return {
    async get(actor: DashboardActor): Promise<Schemas["NoticePreferences"]> {
      const chosen = await store.read.noticePreferences.get(actor.user.id);
      return presentNotices(noticesOf(actor.user, chosen), chosen !== null);
    },

    /** Only the fields sent change; the change is in the audit log (`user.notices_updated`). */
    async update(
      actor: DashboardActor,
      input: Schemas["UpdateNoticePreferencesRequest"],
    ): Promise<Schemas["NoticePreferences"]> {
      return store.transaction(async (tx) => {
        const user = await tx.users.get(actor.user.id);
        if (!user) throw new DomainError("UNAUTHORIZED");
        const at = clock.now().toISOString();
        const before = noticesOf(user, await tx.noticePreferences.get(user.id));
        const after = {
          ...before,
          ...(input.payments !== undefined ? { payments: input.payments } : {}),
          ...(input.withdrawals !== undefined ? { withdrawals: input.withdrawals } : {}),
          ...(input.disputes !== undefined ? { disputes: input.disputes } : {}),
          ...(input.newDevice !== undefined ? { newDevice: input.newDevice } : {}),
          updatedAt: at,
        };
        await tx.noticePreferences.put(after);
        await recordAuditIfChanged(tx, {
          accountId: user.accountId,
          by: byUser(actor),
          action: "user.notices_updated",
          target: { type: "user", id: user.id },
          changes: changedFields(before, after, fields),
          at,
        });
        return presentNotices(after, true);
      });
    },
  };
}
