import { rateLimitsPerMinute } from "./policy.js";

// The seed's per-IP request budgets (§8), shared by the API, the hosted checkout and the
// configuration that may change them; the numbers are the spec's (`x-request-limits`).

/** Requests per minute per IP address. */
export interface RateLimits {
  get: number;
  write: number;
  withdrawals: number;
}

export const defaultRateLimits: RateLimits = { ...rateLimitsPerMinute };
