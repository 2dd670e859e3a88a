import { MAX_AMOUNT_CENTS } from "../pix/brcode.js";

// The numbers of the service's rules, each written once here and once in the spec
// (spec/common/scalars.tsp and the resource files). `server/test/policy.test.ts` reads the
// published OpenAPI documents and fails when a bound there disagrees with this module. Where a
// number comes from: the seed spec, or the decisions in docs/decisions.md.

/** Bounds of `amountCents`. */
export const amountLimits = {
  /**
   * The largest amount anywhere (charges, payment links, withdrawals, refunds): what BR Code field
   * 54, 13 characters (`9999999999.99`), can carry. docs/decisions.md "Largest amount".
   */
  maxCents: MAX_AMOUNT_CENTS,
  /** The smallest charge and payment link: R$ 5,00 (seed). */
  minChargeCents: 500,
  /** The smallest withdrawal, fee included: R$ 6,00 (seed). */
  minWithdrawalCents: 600,
} as const;

/** Length of the description of a charge or payment link (seed). */
export const descriptionLength = { min: 3, max: 180 } as const;

/** A payer's or customer's name and e-mail (seed); the hosted checkout applies them too. */
export const personLimits = { nameMin: 2, nameMax: 120, emailMax: 160 } as const;

/** `maxPayments` of a payment link, when given (seed). */
export const maxPaymentsRange = { min: 1, max: 100_000 } as const;

/** `limit` of every list (seed). */
export const pageLimit = { min: 1, max: 100, default: 20 } as const;

/** `metadata` limits (docs/decisions.md). OpenAPI 3.0 declares only `maxKeys`; the rest is ours. */
export const metadataLimits = { maxKeys: 50, maxKeyLength: 40, maxBytes: 8 * 1024 } as const;

/** Default fees of a new account (docs/decisions.md "Fees"). */
export const defaultPlan = { chargeFeeCents: 80, chargeFeeBps: 0, withdrawFeeCents: 80 } as const;

/** Bounds an operator may set on a plan. */
export const planLimits = {
  maxChargeFeeBps: 10_000,
  /** Below the smallest withdrawal, so every withdrawal pays something out. */
  maxWithdrawFeeCents: amountLimits.minWithdrawalCents - 1,
} as const;

/** Operator tags on a customer: at most `maxCount`, each `min` to `max` characters. */
export const customerTagLength = { min: 1, max: 40, maxCount: 20 } as const;

/** Release period of paid charges, in days (docs/decisions.md "Release period"). */
export const releasePeriodDays = { default: 1, min: 0, max: 90 } as const;

/**
 * Refunds (docs/decisions.md "Refunds"): none later than `windowDays` after `paidAt` (the Central
 * Bank's window for a devolução); a `reason`, when given, of `reasonMin` to `reasonMax` characters.
 */
export const refundLimits = { windowDays: 90, reasonMin: 3, reasonMax: 140 } as const;

/** How long an idempotency key replays its first response (docs/decisions.md "Idempotency"). */
export const idempotencyWindowSeconds = 24 * 3600;

/** The 27 federative units a Brazilian address can be in (`state` of an address). */
export const brazilianStates = [
  "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA", "PB",
  "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO",
] as const; // prettier-ignore

/**
 * The most field errors one response lists (the document's `maxItems` on `errors`): a body of
 * thousands of unknown fields must not answer thousands of items.
 */
export const maxFieldErrors = 100;
