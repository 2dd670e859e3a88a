/**
 * `npm run check:breaking`: compares the contract in `generated/` with the last released one in
 * `spec/releases/<version>/` — the public and operator documents, and the webhook payloads — using
 * openapi-diff. A breaking difference fails the check unless the major version moved, or the
 * difference is acknowledged, with its reason, in `spec/releases/acknowledged-breaking.yaml`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";
import { type BreakingDifference, breakingDifferences, majorOf } from "./breaking/diff.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const releases = join(root, "spec/releases");
const documents = ["openapi.yaml", "admin-openapi.yaml"] as const;

interface Acknowledgement {
  /** The released version the difference is measured against. */
  since: string;
  document: (typeof documents)[number];
  /** openapi-diff's code, e.g. `request.body.scope.remove`. */
  code: string;
  /**
   * A prefix of the location in the new document, e.g. `paths./api/v1/charges/pix.post`; `*`
   * stands for any text, so one entry can name one field on several operations.
   */
  location: string;
  reason: string;
}

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

/** The location prefix of an acknowledgement as a regular expression (`*` is any text). */
const locationPattern = (location: string) =>
  new RegExp(
    `^${location
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}`,
  );

/** The acknowledgement that covers every location of the difference, if any. */
export const acknowledged = (
  list: Acknowledgement[],
  since: string,
  document: string,
  difference: BreakingDifference,
) =>
  list.find(
    (a) =>
      a.since === since &&
      a.document === document &&
      a.code === difference.code &&
      difference.locations.every((l) => locationPattern(a.location).test(l)),
  );

async function main(): Promise<number> {
  const release = latestRelease(existsSync(releases) ? readdirSync(releases) : []);
  if (!release) {
    console.error("No released contract under spec/releases/<version>/.");
    return 1;
  }
  const ackFile = join(releases, "acknowledged-breaking.yaml");
  const acks: Acknowledgement[] = existsSync(ackFile) ? (YAML.parse(readFileSync(ackFile, "utf8")) ?? []) : [];
  let failures = 0;
  for (const name of documents) {
    const before = YAML.parse(readFileSync(join(releases, release, name), "utf8"));
    const after = YAML.parse(readFileSync(join(root, "generated", name), "utf8"));
    const differences = await breakingDifferences(before, after);
    const majorMoved = majorOf(after.info.version) > majorOf(before.info.version);
    const covered = new Map<Acknowledgement, number>();
    for (const difference of differences) {
      const ack = acknowledged(acks, release, name, difference);
      const where = difference.locations.join(", ");
      if (majorMoved) console.log(`${name}: breaking (major ${after.info.version}): ${difference.code} at ${where}`);
      else if (ack) covered.set(ack, (covered.get(ack) ?? 0) + 1);
      else {
        console.error(`${name}: BREAKING since ${release}: ${difference.code} at ${where}`);
        failures++;
      }
    }
    for (const [ack, count] of covered)
      console.log(
        `${name}: acknowledged ${count}× ${ack.code} at ${ack.location}: ${ack.reason.split(". ")[0]?.replace(/\.$/, "")}.`,
      );
    console.log(`${name}: ${differences.length} breaking difference(s) against ${release}.`);
  }
  if (failures > 0) {
    console.error(
      `${failures} breaking change(s). Make the change compatible, or move the major version (spec/main.tsp @info) ` +
        "and write it in CHANGELOG.md, or acknowledge it with a reason in spec/releases/acknowledged-breaking.yaml.",
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main();
