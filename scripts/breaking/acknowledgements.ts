/**
 * Acknowledged breaking changes (`spec/releases/acknowledged-breaking.yaml`): each entry gives a
 * reason and the exact changes it allows, by place and by value. A change at the same place to
 * another value is not covered: lowering a maximum that an entry allowed to appear fails again.
 */
import { isDeepStrictEqual } from "node:util";
import type { BreakingDifference, Value } from "./difference.js";

export interface AcknowledgedChange {
  /** The difference's location; `*` stands for any text, so one change can name several operations. */
  location: string;
  /** The value before and after, as the check prints them (`absent` where there was none). */
  from: Value;
  to: Value;
}

export interface Acknowledgement {
  /** The released version the changes are measured against. */
  since: string;
  document: string;
  reason: string;
  changes: AcknowledgedChange[];
}

const isValue = (v: unknown): v is Value =>
  ["string", "number", "boolean"].includes(typeof v) || (Array.isArray(v) && v.every((i) => typeof i === "string"));

/** The entries of the file, checked: a malformed one throws, naming what is wrong with it. */
export function parseAcknowledgements(parsed: unknown, documents: readonly string[]): Acknowledgement[] {
  if (parsed === null || parsed === undefined) return [];
  if (!Array.isArray(parsed)) throw new Error("acknowledged-breaking.yaml: expected a list of entries");
  return parsed.map((entry: Partial<Acknowledgement>, i) => {
    const problem = (what: string) => new Error(`acknowledged-breaking.yaml, entry ${i + 1}: ${what}`);
    if (typeof entry.since !== "string" || !/^\d+\.\d+\.\d+$/.test(entry.since)) throw problem("since: a version");
    if (!documents.includes(entry.document as string)) throw problem(`document: one of ${documents.join(", ")}`);
    if (typeof entry.reason !== "string" || entry.reason.trim().length < 20) throw problem("reason: say why");
    if (!Array.isArray(entry.changes) || entry.changes.length === 0) throw problem("changes: at least one");
    for (const change of entry.changes) {
      if (typeof change?.location !== "string" || !change.location) throw problem("each change needs a location");
      if (!isValue(change.from) || !isValue(change.to))
        throw problem(`${change.location}: from and to are the values the check prints (absent where none)`);
    }
    return entry as Acknowledgement;
  });
}

/** A location with `*` as a regular expression that must match the whole location. */
const pattern = (location: string) =>
  new RegExp(
    `^${location
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );

/** The acknowledged change that allows this difference exactly (place, old value, new value), if any. */
export function acknowledgedChange(
  list: Acknowledgement[],
  since: string,
  document: string,
  difference: BreakingDifference,
): { entry: Acknowledgement; change: AcknowledgedChange } | undefined {
  for (const entry of list) {
    if (entry.since !== since || entry.document !== document) continue;
    const change = entry.changes.find(
      (c) =>
        isDeepStrictEqual(c.from, difference.from) &&
        isDeepStrictEqual(c.to, difference.to) &&
        pattern(c.location).test(difference.location),
    );
    if (change) return { entry, change };
  }
  return undefined;
}
