/**
 * `npm run check:breaking`: compares every document the project publishes, in `generated/`, with
 * the last released one in `spec/releases/<version>/` (webhook payloads included) and fails on a
 * breaking difference, unless the major version moved or the exact change (place, old value, new
 * value) is acknowledged, with its reason, in `spec/releases/acknowledged-breaking.yaml`. The rules
 * are in `spec/releases/README.md`; the comparison in `scripts/breaking/`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";
import { type Acknowledgement, acknowledgedChange, parseAcknowledgements } from "./breaking/acknowledgements.js";
import { type BreakingDifference, breakingDifferences, majorOf } from "./breaking/diff.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** Every document the project publishes, one line each. A document no release holds yet is new: nothing to compare. */
export const documents = ["openapi.yaml", "admin-openapi.yaml", "dashboard-openapi.yaml"] as const;

/** The newest released version: the highest semver folder under spec/releases. */
export function latestRelease(names: string[]): string | null {
  const versions = names.filter((n) => /^\d+\.\d+\.\d+$/.test(n));
  versions.sort((a, b) => {
    const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  });
  return versions.at(-1) ?? null;
}

/** A value as an acknowledgement writes it: `absent` and `present` bare, anything else as JSON. */
const shown = (value: BreakingDifference["from"]) =>
  value === "absent" || value === "present" ? value : JSON.stringify(value);

/** The operation a location belongs to (`POST /api/v1/withdrawals`), and the place within it. */
function split(location: string): { operation: string; within: string } {
  const match = /^paths\.(.*?)\.(get|put|post|delete|options|head|patch|trace)(?:\.|$)(.*)$/.exec(location);
  return match
    ? { operation: `${(match[2] as string).toUpperCase()} ${match[1]}`, within: match[3] as string }
    : { operation: "", within: location };
}

/**
 * The differences one change makes, on one line: a shared schema changed shows at every operation
 * that uses it, so differences alike but for their operation are printed once, with the count.
 */
function report(differences: BreakingDifference[]): string[] {
  const groups = new Map<string, BreakingDifference[]>();
  for (const d of differences) {
    const key = JSON.stringify([d.code, split(d.location).within, d.from, d.to]);
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  return [...groups.values()].map((group) => {
    const [first] = group as [BreakingDifference];
    const more = group.length > 1 ? ` (and at ${group.length - 1} more operation(s))` : "";
    return `${first.code} at ${first.location}: ${shown(first.from)} → ${shown(first.to)}${more}`;
  });
}

/** The result of comparing one document with its release: what fails, what was acknowledged, what no difference used. */
export function judge(
  name: string,
  release: string,
  before: { info: { version: string } },
  after: { info: { version: string } },
  differences: BreakingDifference[],
  acks: Acknowledgement[],
) {
  const majorMoved = majorOf(after.info.version) > majorOf(before.info.version);
  const failures: BreakingDifference[] = [];
  const covered = new Map<Acknowledgement, number>();
  const used = new Set<object>();
  for (const difference of differences) {
    const match = majorMoved ? undefined : acknowledgedChange(acks, release, name, difference);
    if (match) {
      covered.set(match.entry, (covered.get(match.entry) ?? 0) + 1);
      used.add(match.change);
    } else if (!majorMoved) failures.push(difference);
  }
  const unused = acks
    .filter((a) => a.since === release && a.document === name && !majorMoved)
    .flatMap((a) => a.changes.filter((c) => !used.has(c)));
  return { majorMoved, failures, covered, unused };
}

/** Where a check reads: the released contracts (and the acknowledgements), the generated documents. */
export interface Places {
  releases: string;
  generated: string;
  documents: readonly string[];
}

/** Compares every document with its release; `log` and `error` receive what to print. */
export function checkContracts(places: Places, log: (line: string) => void, error: (line: string) => void): number {
  const release = latestRelease(existsSync(places.releases) ? readdirSync(places.releases) : []);
  if (!release) {
    error("No released contract under spec/releases/<version>/.");
    return 1;
  }
  const ackFile = join(places.releases, "acknowledged-breaking.yaml");
  const parsed = existsSync(ackFile) ? YAML.parse(readFileSync(ackFile, "utf8")) : [];
  // An entry may name any document the project publishes, also when a check compares fewer.
  const acks = parseAcknowledgements(parsed, [...new Set([...documents, ...places.documents])]);
  let failures = 0;
  for (const name of places.documents) {
    const released = join(places.releases, release, name);
    if (!existsSync(released)) {
      log(`${name}: not in release ${release}, so nothing in it can break; it is compared from the next release on.`);
      continue;
    }
    const before = YAML.parse(readFileSync(released, "utf8"));
    const after = YAML.parse(readFileSync(join(places.generated, name), "utf8"));
    const differences = breakingDifferences(before, after);
    const verdict = judge(name, release, before, after, differences, acks);
    if (verdict.majorMoved)
      for (const line of report(differences)) log(`${name}: breaking (major ${after.info.version}): ${line}`);
    for (const [ack, count] of verdict.covered)
      log(`${name}: acknowledged ${count}×: ${ack.reason.split(". ")[0]?.replace(/\.$/, "")}.`);
    for (const change of verdict.unused)
      log(`${name}: note: an acknowledged change matches nothing (remove it?): ${change.location}`);
    for (const line of report(verdict.failures)) error(`${name}: BREAKING since ${release}: ${line}`);
    failures += verdict.failures.length;
    log(`${name}: ${differences.length} breaking difference(s) against ${release}.`);
  }
  if (failures > 0) {
    error(
      `${failures} breaking difference(s). Make the change compatible, or move the major version (spec/main.tsp @info) ` +
        "and write it in CHANGELOG.md, or acknowledge the exact change (location, from, to) with a reason in " +
        "spec/releases/acknowledged-breaking.yaml (see spec/releases/README.md).",
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.exitCode = checkContracts(
    { releases: join(root, "spec/releases"), generated: join(root, "generated"), documents },
    (line) => console.log(line),
    (line) => console.error(line),
  );
