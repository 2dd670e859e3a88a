import { fieldError } from "./errors.js";
import { amountLimits } from "./policy.js";

/**
 * Refuses, before any write, an `amountCents` outside `min`..the largest amount (docs/decisions/0004-api-conventions-the-seed-leaves-open.md,
 * "Largest amount": what BR Code field 54 can carry). On HTTP the validator refuses it first, from
 * the spec's bounds; this holds every other caller (the hosted checkout, a link stored before the
 * bound existed, the operator tools) to the same rule, as `400 VALIDATION_ERROR` on the field.
 */
export function checkAmountCents(amountCents: number, min: number, path = "amountCents"): void {
  if (!Number.isSafeInteger(amountCents)) throw fieldError(path, "deve ser um número inteiro de centavos");
  if (amountCents < min) throw fieldError(path, `deve ser maior ou igual a ${min}`);
  if (amountCents > amountLimits.maxCents) {
    throw fieldError(path, `deve ser menor ou igual a ${amountLimits.maxCents}`);
  }
}
