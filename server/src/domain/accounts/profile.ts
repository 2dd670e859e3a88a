import type { components } from "../../../../generated/dashboard-api.js";
import { writeAudited } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, notFound } from "../core/errors.js";
import { presentUser } from "../identity/model.js";
import { type DashboardActor } from "../identity/model.js";
import { presentVerification } from "./verification.js";

// The user's account as the dashboard shows it (issue 25): profile, verification, plan and fees,
// release period, read from what the operator sets; and the user's own profile (its name).

type Schemas = components["schemas"];

export function accountProfileUseCases(deps: DomainDeps) {
  const { store, clock } = deps;

  return {
    /** The account of the session's user, as it is now. */
    async profile(actor: DashboardActor): Promise<Schemas["AccountProfile"]> {
      const [account, request] = await Promise.all([
        store.read.accounts.get(actor.account.id),
        store.read.verificationRequests.get(actor.account.id),
      ]);
      if (!account) throw notFound();
      return {
        id: account.id,
        name: account.name,
        ownerEmail: account.ownerEmail,
        verification: presentVerification(account, request),
        plan: { ...account.plan },
        releasePeriodDays: account.releasePeriodDays,
        merchantCity: account.merchantCity,
        createdAt: account.createdAt,
      };
    },

    /** Changes the user's own name. */
    async updateProfile(actor: DashboardActor, input: { name: string }): Promise<Schemas["User"]> {
      return store.transaction(async (tx) => {
        const user = await tx.users.get(actor.user.id);
        if (!user) throw new DomainError("UNAUTHORIZED");
        const at = clock.now().toISOString();
        const updated = await writeAudited(tx, tx.users, {
          by: byUser(actor),
          action: "user.profile_updated",
          target: "user",
          before: user,
          after: { ...user, name: input.name.trim(), updatedAt: at },
          fields: ["name"],
          onlyIfChanged: true,
          at,
        });
        return presentUser(updated);
      });
    },
  };
}
