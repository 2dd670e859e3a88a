import type { components } from "../../../../generated/dashboard-api.js";
import { operationTable } from "../../../../generated/dashboard-operations.js";
import { recordAudit } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import { defaultPermissions } from "../accounts/index.js";
import { changedApiKey, checkAllowedIps, rolledApiKey } from "./rules.js";
import { type DashboardMode, inMode, type ModeCaller, requireActiveForProduction } from "../identity/index.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, fieldError, notFound } from "../core/errors.js";
import type { Role } from "../identity/model.js";
import type { ApiKeyRecord, PageRequest } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { presentOperatorKey } from "./present.js";
import { maxKeyRollGraceSeconds, type Permission } from "../core/policy.js";
import type { StoreTx } from "../ports/store.js";
import { createKeyAudited, revokeKeyAudited, updateKeyAudited } from "./audited.js";
import { requireStepUp } from "../identity/index.js";
import { type DashboardActor } from "../identity/model.js";
import { remainingDailyLimit } from "../balance/index.js";

// The account's API keys in the dashboard (issue 25 §2), per mode: the same records, and the same
// changes (`api-keys.ts`), as the operator API's. Production keys need a verified account and a
// step-up to be created or rolled. Every change is in the account's audit log, in its own
// transaction, as the operator API writes it (never a secret: a roll records the visible prefixes).
// docs/decisions/0031-api-keys-in-the-dashboard.md.

type Schemas = components["schemas"];

/** What the dashboard shows of a key besides its record: its last use and what its daily limit leaves today. */
interface KeyUsage {
  lastUsedAt: string | null;
  dailyWithdrawLeftCents: number | null;
}

/**
 * A key as the dashboard shows it: the operator's view of the same key (never its secret; the
 * secret before a roll only while it is accepted), without the account it is in, with what its
 * daily limit leaves today.
 */
function presentKey(key: ApiKeyRecord, usage: KeyUsage, now: string): Schemas["ApiKey"] {
  const { accountId: _account, ...shown } = presentOperatorKey(key, usage.lastUsedAt, now);
  return { ...shown, dailyWithdrawLeftCents: usage.dailyWithdrawLeftCents };
}

/**
 * The permissions that move an account's money out, each with the roles that hold that power in
 * the dashboard: the generated `x-roles` of the dashboard's own operation (spec/dashboard/money.tsp).
 */
const moneyPowers: ReadonlyMap<Permission, readonly Role[]> = new Map<Permission, readonly Role[]>([
  ["withdrawals:write", operationTable.createDashboardWithdrawal.roles],
  ["refunds:write", operationTable.createDashboardRefund.roles],
]);

/** The money permissions among `permissions` that `role` does not hold. */
const moneyPowersBeyond = (role: Role, permissions: readonly string[]): Permission[] =>
  [...moneyPowers].filter(([p, roles]) => permissions.includes(p) && !roles.includes(role)).map(([p]) => p);

/**
 * A production key made, changed or rolled by a user may carry only the money permissions the
 * user's role holds in the dashboard (`403 ROLE_FORBIDDEN` otherwise): a key is a way to act, and
 * a role that may not withdraw or refund must not hand itself one that may. Test keys move sandbox
 * money only: free.
 * docs/decisions/0043-production-needs-a-verified-account-and-keys-carry-their-makers-money-powers.md.
 */
function requireMoneyPowers(caller: ModeCaller, permissions: readonly string[], act: "dar" | "renovar"): void {
  if (!caller.scope.livemode) return;
  const beyond = moneyPowersBeyond(caller.user.role, permissions);
  if (beyond.length === 0) return;
  const which = beyond.join(", ");
  throw new DomainError(
    "ROLE_FORBIDDEN",
    act === "dar"
      ? `Seu papel nesta conta não pode dar a uma chave de produção a permissão ${which}: ela move dinheiro que o seu papel não move.`
      : `Seu papel nesta conta não pode renovar o segredo de uma chave de produção com a permissão ${which}: ela move dinheiro que o seu papel não move.`,
  );
}

/**
 * The permissions of a new key: the ones asked, or the default set (every permission but
 * `withdrawals:write`), which in production leaves out the money permissions the maker's role does
 * not hold, so a key made with the defaults is one the maker may make.
 */
function newKeyPermissions(caller: ModeCaller, asked: readonly Permission[] | undefined): Permission[] {
  if (asked !== undefined) return [...new Set(asked)];
  if (!caller.scope.livemode) return [...defaultPermissions];
  const beyond = moneyPowersBeyond(caller.user.role, defaultPermissions);
  return defaultPermissions.filter((p) => !beyond.includes(p));
}

export function dashboardKeyUseCases(deps: DomainDeps) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** The key `id` of the caller's account and mode, read in `tx`; another account's or mode's is not found. */
  async function keyInScope(tx: StoreTx, caller: ModeCaller, id: string): Promise<ApiKeyRecord> {
    const key = await tx.apiKeys.get(id);
    if (!key || key.accountId !== caller.scope.accountId || key.livemode !== caller.scope.livemode) throw notFound();
    return key;
  }

  /** Keys as the dashboard shows them: with their last use and what each daily limit leaves today. */
  async function presentAll(keys: readonly ApiKeyRecord[], at: string): Promise<Schemas["ApiKey"][]> {
    const uses = await store.read.apiKeys.lastUses(keys.map((k) => k.id));
    const presented: Schemas["ApiKey"][] = [];
    for (const key of keys) {
      // One sum per key with a limit: a page holds few of them.
      const dailyWithdrawLeftCents = await remainingDailyLimit(store.read, key, new Date(at));
      presented.push(presentKey(key, { lastUsedAt: uses.get(key.id) ?? null, dailyWithdrawLeftCents }, at));
    }
    return presented;
  }

  /** A key as answered after a change. */
  async function presented(key: ApiKeyRecord, at: string): Promise<Schemas["ApiKey"]> {
    const [shown] = await presentAll([key], at);
    if (!shown) throw new Error(`key ${key.id} not presented`);
    return shown;
  }

  /**
   * Production keys (create, roll): a verified account (`403 ACCOUNT_NOT_ACTIVE`), then a step-up
   * in the last 10 minutes (`403 STEP_UP_REQUIRED`). The first is said first: a step-up cannot fix it.
   */
  function guardProduction(actor: DashboardActor, caller: ModeCaller, at: string) {
    if (!caller.scope.livemode) return;
    requireActiveForProduction(caller);
    requireStepUp(actor, at);
  }

  return {
    /** The mode's keys, newest first, each with when it was last used. */
    async list(actor: DashboardActor, mode: DashboardMode, page: PageRequest): Promise<Schemas["ApiKeyPage"]> {
      const caller = inMode(actor, mode);
      const result = await pageOrInvalidCursor(() => store.read.apiKeys.list(caller.scope, page));
      const at = now();
      return { data: await presentAll(result.items, at), hasMore: result.hasMore };
    },

    /** A new key of the mode; its secret is in this answer only. */
    async create(
      actor: DashboardActor,
      mode: DashboardMode,
      body: Schemas["CreateDashboardApiKeyRequest"],
    ): Promise<Schemas["ApiKeyWithSecret"]> {
      const caller = inMode(actor, mode);
      const at = now();
      guardProduction(actor, caller, at);
      checkAllowedIps(body.allowedIps);
      const permissions = newKeyPermissions(caller, body.permissions);
      requireMoneyPowers(caller, permissions, "dar");
      const { key, secret } = await store.transaction(async (tx) => {
        const account = await tx.accounts.get(caller.scope.accountId);
        if (!account) throw notFound();
        return createKeyAudited(
          tx,
          account,
          {
            name: body.name,
            livemode: caller.scope.livemode,
            permissions,
            allowedIps: body.allowedIps,
            dailyWithdrawLimitCents: body.dailyWithdrawLimitCents,
          },
          byUser(actor),
          at,
        );
      });
      const usage = { lastUsedAt: null, dailyWithdrawLeftCents: key.dailyWithdrawLimitCents };
      return { ...presentKey(key, usage, at), secret };
    },

    /** Changes the permissions, the IP list or the daily limit; the key's next request obeys them. */
    async update(
      actor: DashboardActor,
      mode: DashboardMode,
      id: string,
      body: Schemas["UpdateDashboardApiKeyRequest"],
    ): Promise<Schemas["ApiKey"]> {
      const caller = inMode(actor, mode);
      checkAllowedIps(body.allowedIps);
      const at = now();
      // A production key's rules can let it move real money (`withdrawals:write`, a higher or no
      // daily limit, any address): a step-up, as to create or roll one. No verification check: an
      // account that lost it may still narrow the keys it has.
      if (caller.scope.livemode) requireStepUp(actor, at);
      const updated = await store.transaction(async (tx) => {
        const before = await keyInScope(tx, caller, id);
        // What the key carries after the change, whatever the change is: a role that may not
        // withdraw may take `withdrawals:write` away, never give it or loosen the rules of a key
        // that has it (its IP list, its daily limit).
        requireMoneyPowers(caller, changedApiKey(before, body, at).permissions, "dar");
        return updateKeyAudited(tx, before, body, byUser(actor), at);
      });
      return presented(updated, at);
    },

    /** A new secret; the one before stays accepted for the grace asked (at most 24 hours). */
    async roll(
      actor: DashboardActor,
      mode: DashboardMode,
      id: string,
      body: Schemas["RollApiKeyRequest"],
    ): Promise<Schemas["ApiKeyWithSecret"]> {
      const caller = inMode(actor, mode);
      const at = now();
      guardProduction(actor, caller, at);
      if (body.gracePeriodSeconds < 0 || body.gracePeriodSeconds > maxKeyRollGraceSeconds) {
        throw fieldError("gracePeriodSeconds", `deve estar entre 0 e ${maxKeyRollGraceSeconds} segundos`);
      }
      const { key, secret } = await store.transaction(async (tx) => {
        const before = await keyInScope(tx, caller, id);
        // The new secret is answered to the one who rolls: it may not be a power its role lacks.
        requireMoneyPowers(caller, before.permissions, "renovar");
        const rolled = rolledApiKey(before, body.gracePeriodSeconds, at);
        await tx.apiKeys.update(rolled.key);
        await recordAudit(tx, {
          accountId: before.accountId,
          by: byUser(actor),
          action: "api_key.rolled",
          target: { type: "api_key", id },
          livemode: before.livemode,
          // The visible prefixes and the grace only: the audit log never holds a secret.
          changes: {
            prefix: { from: before.prefix, to: rolled.key.prefix },
            graceEndsAt: { from: null, to: rolled.key.previousExpiresAt },
          },
          at,
        });
        return rolled;
      });
      return { ...(await presented(key, at)), secret };
    },

    /** Revokes the key: it fails from its very next request on, in every process. */
    async revoke(actor: DashboardActor, mode: DashboardMode, id: string): Promise<Schemas["ApiKey"]> {
      const caller = inMode(actor, mode);
      const at = now();
      const revoked = await store.transaction(async (tx) =>
        revokeKeyAudited(tx, await keyInScope(tx, caller, id), byUser(actor), at),
      );
      return presented(revoked, at);
    },
  };
}
