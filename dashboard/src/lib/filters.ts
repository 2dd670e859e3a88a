import { brasiliaDayStart } from "./format";

// Filters kept in the address, so a view can be shared and reloaded: the address's words are
// Portuguese and Brasília days (`?de=2026-11-01&ate=2026-11-30`); the API's are instants.

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a calendar day `YYYY-MM-DD` that exists. */
export function isDay(value: string | null | undefined): value is string {
  if (!value || !dayPattern.test(value)) return false;
  const at = new Date(`${value}T12:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value;
}

/** The day after `day`. */
export function nextDay(day: string): string {
  const at = new Date(`${day}T12:00:00Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString().slice(0, 10);
}

/**
 * A range of Brasília days (both included) as the API's `createdFrom` (at or after) and
 * `createdTo` (before): from the first day's 00:00 to the day after the last.
 */
export function dayRangeQuery(
  from: string | undefined,
  to: string | undefined,
): { createdFrom?: string; createdTo?: string } {
  const query: { createdFrom?: string; createdTo?: string } = {};
  if (isDay(from)) query.createdFrom = brasiliaDayStart(from);
  if (isDay(to)) query.createdTo = brasiliaDayStart(nextDay(to));
  return query;
}

/** The address's value of `name` when it is one of `allowed`, else undefined. */
export function oneOf<T extends string>(search: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const value = search.get(name);
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** The address with `changes` applied (an empty or undefined value removes the key) and its cursor dropped. */
export function withFilters(search: URLSearchParams, changes: Record<string, string | undefined>): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === "") next.delete(name);
    else next.set(name, value);
  }
  // Another filter is another list: its pages start over.
  next.delete("apos");
  return next;
}
