import type { components } from "../../../../generated/dashboard-api.js";
import type { Role, UserRecord } from "../identity/model.js";
import type { NoticePreferencesRecord } from "../ports/notice-store.js";

// The e-mail notices a member chose (issue 37 §2), and the defaults of its role until it chooses.
// docs/decisions/0057-e-mail-notices.md.

type Schemas = components["schemas"];

/** Who handles money hears of it by default; everyone hears of a log-in from a new device. */
const handlesMoney = (role: Role) => role === "owner" || role === "admin" || role === "finance";

/** The notices of a member who has not chosen. */
function defaultNotices(user: Pick<UserRecord, "id" | "accountId" | "role">): NoticePreferencesRecord {
  const money = handlesMoney(user.role);
  return {
    userId: user.id,
    accountId: user.accountId,
    payments: money ? "each" : "off",
    withdrawals: money,
    disputes: money,
    newDevice: true,
    updatedAt: "",
  };
}

/** What the member receives: its choice, or its role's defaults. */
export const noticesOf = (
  user: Pick<UserRecord, "id" | "accountId" | "role">,
  chosen: NoticePreferencesRecord | null | undefined,
): NoticePreferencesRecord => chosen ?? defaultNotices(user);

export const presentNotices = (notices: NoticePreferencesRecord, chosen: boolean): Schemas["NoticePreferences"] => ({
  payments: notices.payments,
  withdrawals: notices.withdrawals,
  disputes: notices.disputes,
  newDevice: notices.newDevice,
  chosen,
});
