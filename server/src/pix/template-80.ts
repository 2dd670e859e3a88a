/**
 * Template 80 of a Pix Automático BR Code (recurrence-brcode.ts), its bound alone: the
 * configuration checks a base address against it (domain/core/recurrence-location.ts) without
 * loading the BR Code modules and their library (the operator CLI reads that configuration).
 */

/** Sub-field 25 of template 80: the recurrence's location, without scheme. */
export const LOCATION_MAX_LENGTH = 77;
