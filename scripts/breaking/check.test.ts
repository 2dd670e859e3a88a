import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import YAML from "yaml";
import { checkContracts, documents } from "../check-breaking.js";
import { acknowledgedChange, parseAcknowledgements } from "./acknowledgements.js";

const release = "spec/releases/1.0.0";
const released = join(release, "openapi.yaml");
const acknowledgements = "spec/releases/acknowledged-breaking.yaml";
const withdrawalAmount = (doc: any) => doc.components.schemas.CreateWithdrawalRequest.properties.amountCents;

/** The temporary folders of the test running (a test may check more than once). */
const scratches: string[] = [];
afterEach(() => {
  for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
});

/**
 * A repository in a temporary folder: release 1.0.0 with the project's real acknowledgements, and
 * `generated/` holding `document` (the public one unless named) changed by `change`, and `extra`;
 * those are the documents compared. With `paths`, the document keeps only those paths, released
 * and changed alike (a comparison of the whole dashboard's document takes about 15 s of CPU).
 */
function check(
  change: (doc: any) => void,
  extra: Record<string, unknown> = {},
  document: (typeof documents)[number] = "openapi.yaml",
  paths?: string[],
) {
  const scratch = mkdtempSync(join(tmpdir(), "check-breaking-"));
  scratches.push(scratch);
  const [releases, generated] = [join(scratch, "releases"), join(scratch, "generated")];
  mkdirSync(join(releases, "1.0.0"), { recursive: true });
  mkdirSync(generated);
  copyFileSync(acknowledgements, join(releases, "acknowledged-breaking.yaml"));
  const read = () => {
    const doc = YAML.parse(readFileSync(join(release, document), "utf8"));
    if (paths) doc.paths = Object.fromEntries(paths.map((path) => [path, doc.paths[path]]));
    return doc;
  };
  writeFileSync(join(releases, "1.0.0", document), YAML.stringify(read()));
  const doc = read();
  change(doc);
  writeFileSync(join(generated, document), YAML.stringify(doc));
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(generated, name), YAML.stringify(content));
  const [out, err]: [string[], string[]] = [[], []];
  const code = checkContracts(
    { releases, generated, documents: [document, ...Object.keys(extra)] },
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("npm run check:breaking", () => {
  test("when a change the acknowledgements allow is made (withdrawal amounts gain their maximum), then the check passes and says which entry allowed it", () => {
    const result = check((doc) => {
      withdrawalAmount(doc).maximum = 999_999_999_999;
    });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain("acknowledged 1×: Every amount gained its maximum");
  });

  test("when the maximum an acknowledgement allowed is then lowered (to 100 000), then the check fails: the entry allows 999 999 999 999, not any maximum there", () => {
    const result = check((doc) => {
      withdrawalAmount(doc).maximum = 100_000;
    });
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      "paths./api/v1/withdrawals.post.requestBody.content.application/json.schema.properties.amountCents.maximum: absent → 100000",
    );
  });

  test("when a document is published that no release holds yet (a future one), then it is new: the check says so and passes", () => {
    const future = YAML.parse(readFileSync(released, "utf8"));
    const result = check(() => {}, { "partner-openapi.yaml": future });
    expect(result.code).toBe(0);
    expect(result.out).toContain("partner-openapi.yaml: not in release 1.0.0");
  });

  test("when the releases are listed, then every document the project publishes is in the newest one: the check compares each", () => {
    const newest = readdirSync("spec/releases")
      .filter((name) => /^\d+\.\d+\.\d+$/.test(name))
      .sort()
      .at(-1) as string;
    const releasedNames = readdirSync(join("spec/releases", newest));
    expect(documents.filter((name) => !releasedNames.includes(name))).toEqual([]);
  });

  test("when generated/ is listed, then every OpenAPI document the project publishes is one the check compares", () => {
    const published = readdirSync("generated").filter((name) => name.endsWith("openapi.yaml"));
    expect(published.length).toBeGreaterThanOrEqual(2);
    expect([...documents].sort()).toEqual(published.sort());
  });
});

/** Breaking changes of the dashboard's released document, one a row (issue 33: it was never compared). */
const dashboardPaths = [
  "/dashboard/v1/session",
  "/dashboard/v1/team/invitations",
  "/dashboard/v1/audit-log",
  "/dashboard/v1/me/two-factor",
];
const dashboardBreaks = [
  {
    name: "a response field removed (the session's csrfToken)",
    change: (doc: any) => delete doc.components.schemas.Session.properties.csrfToken,
    reported:
      "response.body.remove at paths./dashboard/v1/session.get.responses.200.content.application/json.schema.properties.csrfToken",
  },
  {
    name: "a request enum narrowed (an invitation's role without viewer)",
    change: (doc: any) => {
      doc.components.schemas.InviteRequest.properties.role = {
        type: "string",
        enum: ["owner", "admin", "developer", "finance"],
      };
    },
    reported:
      "paths./dashboard/v1/team/invitations.post.requestBody.content.application/json.schema.properties.role.enum",
  },
  {
    name: "a query parameter renamed (the audit log's action → acao)",
    change: (doc: any) => {
      doc.components.parameters["AuditLogQuery.action"].name = "acao";
    },
    reported: "paths./dashboard/v1/audit-log.get.parameters.query:action",
  },
  {
    name: "an operation deleted (turning two-factor authentication off)",
    change: (doc: any) => delete doc.paths["/dashboard/v1/me/two-factor"].delete,
    reported: "paths./dashboard/v1/me/two-factor.delete: present → absent",
  },
];

describe("npm run check:breaking on the dashboard's document", () => {
  test("when nothing changed since its release, then the check passes and compares it", () => {
    const result = check(() => {}, {}, "dashboard-openapi.yaml", dashboardPaths);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain("dashboard-openapi.yaml: 0 breaking difference(s) against 1.0.0.");
  });

  // The four changes are made in one copy and compared once: each must be named on its own.
  let broken: ReturnType<typeof check>;
  beforeAll(() => {
    broken = check(
      (doc) => dashboardBreaks.forEach((row) => row.change(doc)),
      {},
      "dashboard-openapi.yaml",
      dashboardPaths,
    );
  });

  test.each(dashboardBreaks)("when $name, then the check fails and names the change", ({ reported }) => {
    expect(broken.code).toBe(1);
    const lines = broken.err
      .split("\n")
      .filter((line) => line.startsWith("dashboard-openapi.yaml: BREAKING since 1.0.0:"));
    expect(lines.some((line) => line.includes(reported))).toBe(true);
  });
});

describe("acknowledgements", () => {
  const entry = (changes: unknown) => ({
    since: "1.0.0",
    document: "openapi.yaml",
    reason: "Every amount gained its maximum, which no working request exceeded.",
    changes,
  });
  const difference = {
    code: "request.body.scope.remove",
    location:
      "paths./api/v1/withdrawals.post.requestBody.content.application/json.schema.properties.amountCents.maximum",
    from: "absent",
    to: 999_999_999_999,
  };

  test("when the project's file is read, then every entry names its changes by location and values", () => {
    const list = parseAcknowledgements(YAML.parse(readFileSync(acknowledgements, "utf8")), documents);
    expect(list.length).toBeGreaterThan(0);
    for (const ack of list) expect(ack.changes.length).toBeGreaterThan(0);
  });

  test.each([
    { name: "the old form (a code and a location prefix, no changes)", bad: { ...entry(undefined), code: "x" } },
    { name: "a change without its old value", bad: entry([{ location: "paths.*", to: 1 }]) },
    { name: "an unknown document", bad: { ...entry([{ location: "paths.*", from: 1, to: 2 }]), document: "x.yaml" } },
  ])("when an entry has $name, then reading the file fails and names the entry", ({ bad }) => {
    expect(() => parseAcknowledgements([bad], documents)).toThrow(/entry 1/);
  });

  test.each([
    {
      name: "the same place and values, operations by `*`",
      location: "paths./api/v1/*.amountCents.maximum",
      to: 999_999_999_999,
      allowed: true,
    },
    {
      name: "another new value at the same place",
      location: "paths./api/v1/*.amountCents.maximum",
      to: 100_000,
      allowed: false,
    },
    {
      name: "a location that is only a prefix",
      location: "paths./api/v1/*.amountCents",
      to: 999_999_999_999,
      allowed: false,
    },
  ])("when an acknowledgement names $name, then it allows the difference: $allowed", ({ location, to, allowed }) => {
    const list = parseAcknowledgements([entry([{ location, from: "absent", to }])], documents);
    expect(acknowledgedChange(list, "1.0.0", "openapi.yaml", difference) !== undefined).toBe(allowed);
    expect(acknowledgedChange(list, "1.1.0", "openapi.yaml", difference)).toBeUndefined();
  });
});
