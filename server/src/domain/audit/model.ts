import type { components } from "../../../../generated/dashboard-api.js";
import type { DashboardActor } from "../identity/model.js";

// The records of the audit log (issue 25). Timestamps are ISO 8601 UTC strings, as in `model.ts`.

type Schemas = components["schemas"];

/** What was done (spec/dashboard/audit.tsp `AuditAction`, a closed list). */
export type AuditAction = Schemas["AuditAction"];

/** What kind of object it was done to (spec/dashboard/audit.tsp `AuditTargetType`). */
export type AuditTargetType = Schemas["AuditTargetType"];

/** Who did it: a user of the account (as it was then), or the platform's operator. */
export type AuditActor = { type: "user"; userId: string; email: string } | { type: "operator" };

/** One field's change; values are JSON. */
export interface AuditChange {
  from: unknown;
  to: unknown;
}

/** One entry of an account's audit log: written once, never changed. */
export interface AuditEntryRecord {
  /** `aud_…`. */
  id: string;
  accountId: string;
  actor: AuditActor;
  ip: string | null;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** The mode of the object, when it has one. */
  livemode: boolean | null;
  changes: Record<string, AuditChange>;
  createdAt: string;
}

/** Who makes a change, and from where. */
export interface AuditedBy {
  actor: AuditActor;
  ip: string | null;
}

/** A user of the dashboard, from the address of its request. */
export const byUser = (actor: DashboardActor): AuditedBy => ({
  actor: { type: "user", userId: actor.user.id, email: actor.user.email },
  ip: actor.client.ip ?? null,
});
