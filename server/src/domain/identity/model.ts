import type { components } from "../../../../generated/dashboard-api.js";
import type { Account } from "../core/model.js";
import { DomainError } from "../core/errors.js";
import { newId } from "../core/ids.js";

// The records of the merchant dashboard's people (issue 25): users, their sessions, the one-time
// tokens of e-mail links. Timestamps are ISO 8601 UTC strings, as in `model.ts`.

/** What a user may do in its account (spec/dashboard/common.tsp `Role`). */
export type Role = components["schemas"]["Role"];

/** A person of a merchant: belongs to one account, with one role. */
export interface UserRecord {
  id: string;
  accountId: string;
  /** Lower case: the log-in name. */
  email: string;
  name: string;
  role: Role;
  /** argon2id, in its PHC string form (`$argon2id$v=19$m=19456,t=2,p=1$…`). */
  passwordHash: string;
  /** When the user opened the link of the confirmation e-mail (or of a reset); null until then. */
  emailConfirmedAt: string | null;
  /** The TOTP secret (base32) once two-factor authentication is on; null otherwise. */
  totpSecret: string | null;
  /** A secret being set up (shown, not yet confirmed by a code); null otherwise. */
  totpPendingSecret: string | null;
  totpEnabledAt: string | null;
  /** The last TOTP time step accepted: a code is taken once. */
  totpLastStep: number | null;
  /** SHA-256 (hex) of the recovery codes not used yet. */
  recoveryCodeDigests: string[];
  createdAt: string;
  updatedAt: string;
}

/** A new user of `accountId`, as sign-up and an accepted invitation make one: no two-factor yet. */
export function newUserRecord(user: {
  accountId: string;
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  emailConfirmedAt: string | null;
  at: string;
}): UserRecord {
  return {
    id: newId("usr"),
    accountId: user.accountId,
    email: user.email,
    name: user.name.trim(),
    role: user.role,
    passwordHash: user.passwordHash,
    emailConfirmedAt: user.emailConfirmedAt,
    totpSecret: null,
    totpPendingSecret: null,
    totpEnabledAt: null,
    totpLastStep: null,
    recoveryCodeDigests: [],
    createdAt: user.at,
    updatedAt: user.at,
  };
}

/** A server-side session of the dashboard. The cookie's token itself is never stored. */
export interface SessionRecord {
  /** `ses_…`: how the session is named in lists and ended. */
  id: string;
  /** SHA-256 (hex) of the cookie's token: how a request's session is found. */
  tokenDigest: string;
  userId: string;
  accountId: string;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  /** The last request (to the minute): the idle expiry counts from it. */
  lastSeenAt: string;
  /** The absolute expiry. */
  expiresAt: string;
  /** Log-out, ended from another session, or a password change or reset; null while it lasts. */
  endedAt: string | null;
  /** The last log-in or step-up with the second factor: dangerous operations need it recent. */
  steppedUpAt: string | null;
}

/**
 * A user's wrong step-up codes (docs/decisions/0040-enrolment-asks-the-password-and-step-up-failures-lock.md);
 * a user without a row has none. Counted per user, whichever session sent them.
 */
export interface StepUpFailuresRecord {
  /** The user's id. */
  id: string;
  /** Wrong codes since `windowStartedAt`. */
  failures: number;
  /** The first wrong code of the current window. */
  windowStartedAt: string;
  /** Step-up is refused until then; null when it is not locked. */
  lockedUntil: string | null;
  updatedAt: string;
}

/** An account's security rules, set by its owner; an account without a row has the defaults. */
export interface AccountSecurityRecord {
  /** The account's id. */
  id: string;
  requireTwoFactor: boolean;
  updatedAt: string;
}

/** An invitation to join an account with a role; the link's token is kept only as its digest. */
export interface InvitationRecord {
  /** `inv_…`. */
  id: string;
  accountId: string;
  /** Lower case. */
  email: string;
  role: Role;
  /** SHA-256 (hex) of the token of the e-mail's link. */
  tokenDigest: string;
  /** The user who invited. */
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  /** Revoked by a member, or replaced by a new invitation to the same address. */
  revokedAt: string | null;
}

/** Where a merchant's request for verification stands. */
export type VerificationStatus = "requested" | "verified" | "rejected";

/** An account's latest request for verification (one per account: a new one replaces it). */
export interface VerificationRequestRecord {
  /** The account's id. */
  id: string;
  /** 1 when first asked, one more on each replacement: what the operator names when it decides. */
  version: number;
  legalName: string;
  documentType: "CPF" | "CNPJ";
  /** Digits only (an alphanumeric CNPJ in upper case). */
  document: string;
  status: VerificationStatus;
  requestedByUserId: string;
  requestedByEmail: string;
  /** When this request was made (the list's order). */
  createdAt: string;
  decidedAt: string | null;
  rejectionReason: string | null;
  updatedAt: string;
}

/** Why an e-mail link was sent. */
export type EmailTokenPurpose = "confirm_email" | "reset_password";

/** The one-time token of an e-mail link; only its digest is stored. */
export interface EmailTokenRecord {
  /** SHA-256 (hex) of the token. */
  id: string;
  userId: string;
  purpose: EmailTokenPurpose;
  expiresAt: string;
  usedAt: string | null;
  createdAt: string;
}

/** Who is calling the dashboard: a user of an account, through one of its sessions. */
export interface DashboardActor {
  user: UserRecord;
  account: Account;
  session: SessionRecord;
  /**
   * The synchronizer token every change must carry in `x-csrf-token`: derived from the cookie's
   * token (`csrfTokenOf`), so it is never stored, and a copy of the sessions table cannot forge it.
   */
  csrfToken: string;
  /** The account's rule: every member must use two-factor authentication. */
  requireTwoFactor: boolean;
  /** Where this request came from (the audit log records its IP address). */
  client: ClientInfo;
}

/** Where a request came from, as the HTTP layer decided it. */
export interface ClientInfo {
  ip: string | undefined;
  userAgent: string | undefined;
}

/** The user as the dashboard shows it. */
export const presentUser = (user: UserRecord): components["schemas"]["User"] => ({
  id: user.id,
  name: user.name,
  email: user.email,
  role: user.role,
  emailConfirmed: user.emailConfirmedAt !== null,
  twoFactorEnabled: user.totpEnabledAt !== null,
  createdAt: user.createdAt,
});

/**
 * Refuses (`403 EMAIL_NOT_CONFIRMED`) what only the owner of the address may do: turn on two-factor
 * authentication (which would keep the address's owner out), invite people, ask for verification
 * (docs/decisions/0041-e-mail-links-ownership-and-identity-housekeeping.md).
 */
export function requireConfirmedEmail(actor: Pick<DashboardActor, "user">): void {
  if (actor.user.emailConfirmedAt !== null) return;
  throw new DomainError(
    "EMAIL_NOT_CONFIRMED",
    "Confirme seu e-mail antes: abra o link enviado no cadastro (válido por 24 horas) ou, se ele expirou, " +
      "peça uma redefinição de senha, cujo link também confirma o endereço.",
  );
}
