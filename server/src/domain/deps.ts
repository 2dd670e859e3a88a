import type { Logger } from "pino";
import type { Store } from "./ports/store.js";
import type { Clock } from "./ports/clock.js";
import type { Mailer } from "./ports/mailer.js";
import type { PixBank } from "./ports/pix-bank.js";
import type { PixPayouts } from "./ports/pix-payouts.js";
import { type Acquirer, type Acquirers, builtInAcquirers } from "./ports/acquirer.js";
import type { AuditedBy } from "./audit/model.js";
import type { Role } from "./identity/model.js";
import type { Account, ApiKeyRecord, Scope } from "./core/model.js";
import { defaultExpirySeconds } from "./core/policy.js";
import type { Keyring } from "./core/secrets.js";

/**
 * How much work a new password's hash costs (PIX_PASSWORD_HASH_COST, docs/configuration.md):
 * `owasp`, the default and the only one production accepts; `minimal`, argon2id's smallest
 * parameters, for the tests (identity/passwords.ts).
 */
export type PasswordHashCost = "owasp" | "minimal";

export interface DomainConfig {
  /** Where the hosted checkout lives: payment link `url`s start with it. */
  publicBaseUrl: string;
  /** Default life of a charge without `expiresAt`. */
  chargeExpirySeconds: number;
  /** Default life of a payment link without `expiresAt`. */
  paymentLinkExpirySeconds: number;
  /** The argon2id parameters of new password hashes (PIX_PASSWORD_HASH_COST; `owasp` in production). */
  passwordHashCost: PasswordHashCost;
  /**
   * How far back the scheduled reconciliation reads (PIX_BANK_RECONCILE_WINDOW_SECONDS): also the
   * window of the operator's run when it names none.
   */
  bankReconcileWindowSeconds: number;
  /**
   * How often the reconciler runs (PIX_BANK_RECONCILE_SECONDS): also how often a recurrence or a
   * cycle charge open at the bank is read again (payments/recurrences/at-bank.ts); default 300.
   */
  bankReconcileSeconds?: number;
  /**
   * How long a pass alone may send a withdrawal's transfers (PIX_BANK_PAYOUT_CLAIM_SECONDS; default
   * `sendClaimMs`, 60 s): balance/transfers.ts `sendClaimFrom`.
   */
  bankPayoutClaimSeconds?: number;
  /**
   * The first pause before a bank task that failed is tried again, doubling to 10 minutes
   * (PIX_BANK_RETRY_SECONDS; default 5): payments/bank-charges.ts `retryAt`.
   */
  bankRetrySeconds?: number;
  /**
   * The request logs' buffer (request-logs/recording.ts): how many entries wait at most before new
   * ones are dropped, and a batch's size; default `defaultRequestLogBuffer` (a test makes it small).
   */
  requestLogBuffer?: { capacity: number; batchSize: number };
}

export const defaultDomainConfig: DomainConfig = {
  publicBaseUrl: "http://localhost:3000",
  chargeExpirySeconds: defaultExpirySeconds.charge,
  paymentLinkExpirySeconds: defaultExpirySeconds.paymentLink,
  passwordHashCost: "owasp",
  bankReconcileWindowSeconds: 3_600,
};

/** What every use case may use. */
export interface DomainDeps {
  store: Store;
  clock: Clock;
  config: DomainConfig;
  mailer: Mailer;
  logger: Logger;
  /** Seals and opens the secrets kept in the store (MASTER_KEYS; core/secrets.ts). */
  secrets: Keyring;
  /** Who moves withdrawals and refunds, per mode; default: the sandbox and the settlement simulator. */
  acquirers?: Acquirers;
  /**
   * The platform's bank (issue 35): production charges are registered there, received Pix
   * confirmed, refunds sent. `current()` answers null while no connection is configured; absent
   * or null, production stays as before (a static code and the settlement simulator).
   */
  bank?: BankAccess;
}

/** How the domain reaches the platform's bank (`DomainDeps.bank`). */
export interface BankAccess {
  current(): Promise<PixBank | null>;
  /**
   * The payouts of the connection's bank (issue 36 §1: production withdrawals are paid out there):
   * null while no connection is configured or its dialect has no payout API (`standard`). Absent:
   * none (production withdrawals keep the settlement simulator).
   */
  payouts?(): Promise<PixPayouts | null>;
  /**
   * Reads the connection again now: called after the operator changed it in this process, so the
   * next production charge goes to the bank just connected (other processes see the change within
   * their re-read interval).
   */
  refresh?(): Promise<unknown>;
  /**
   * How long a production charge's create waits for the bank's answer before it answers the
   * charge `PENDING` and finishes it in the background; default `defaultBankWaitMs`.
   */
  waitMs?: number;
}

/** The default bounded wait of a create for the bank (`BankAccess.waitMs`). */
export const defaultBankWaitMs = 2_000;

/** The acquirer of a mode. */
export const acquirerFor = (deps: Pick<DomainDeps, "acquirers">, livemode: boolean): Acquirer =>
  (deps.acquirers ?? builtInAcquirers)[livemode ? "live" : "test"];

/** Who is calling: the authenticated key, its account, and the scope (account + mode) it sees. */
export interface Actor {
  scope: Scope;
  account: Account;
  apiKey: ApiKeyRecord;
}

/**
 * What most use cases need of who calls them: the account and the scope (account + mode) it works
 * in. The public API's `Actor` is one; so is a dashboard user's `ModeCaller`
 * (dashboard-scope.ts), so the same use cases serve both.
 */
export type ScopedCaller = Pick<Actor, "scope" | "account"> & {
  /**
   * Who to record in the audit log, for a change made through the dashboard; absent for an API
   * key (the public API's changes are not the audit log's).
   */
  audit?: AuditedBy | undefined;
};

/** A person of the dashboard as a use case may name it (the audit log, an e-mail): never its secrets. */
export interface ActingUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

/**
 * Who moves money, for the use cases where it matters: an API key (its permissions and daily
 * withdrawal limit apply) or a dashboard user (no key, so no key's limit; its role decides).
 */
export type Caller = Actor | (ScopedCaller & { user: ActingUser; apiKey?: undefined });
