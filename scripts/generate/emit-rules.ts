/**
 * Step 5 of `npm run generate`: the numbers of the rules (`rules.ts`), read back from the emitted
 * documents, so the server holds no copy of its own. Each entry below says where a number is: a
 * document and a JSON pointer into it, followed through `$ref` and one-member `allOf` (so
 * `ChargeCustomerInput/properties/name/maxLength` reads `PersonName`'s). A pointer that finds
 * nothing, or a value of the wrong kind, stops the generation.
 *
 * A bound is read from its schema keyword (`minimum`, `maxLength`, `maxItems`, `maxProperties`,
 * `default`); a number no keyword can carry from the `x-` extension the TypeSpec writes beside it
 * with `@extension`: `x-default` (a default the server applies; OpenAPI `default` is not used in
 * request bodies, since the request validator would write it into the body), `x-max-key-length`
 * and `x-max-json-bytes` (`Metadata`), `x-replay-window-seconds` (`idempotency-key`),
 * `x-refund-window-days` (`createRefund`), `x-secret-overlap-seconds`
 * (`rotateWebhookEndpointSecret`), the request path's limits at each document's root
 * (`x-request-limits`, `x-service-unavailable-retry-after-seconds`, `x-auth-failures-per-minute`),
 * `x-retry-after-seconds` (`getReadiness`), the dashboard's sessions (`x-failed-log-ins` on
 * `logIn`, `x-step-up-seconds` and `x-failed-step-ups` on `stepUp`, `x-idle-seconds` and
 * `x-seconds-after-log-in` on `Session`), the default expiries (`x-default-seconds-after-creation`
 * on a charge's and a payment link's `expiresAt`), the e-mail links' lifetimes (`x-valid-seconds` on
 * the tokens of e-mail confirmation, password reset and invitation), and webhook delivery
 * (`x-webhook-delivery` at the public document's root: the retry schedule, the timeout, the
 * signature tolerance). Lists (`lists`) are arrays: the retry schedule, and enumerations the
 * dashboard app shows (statuses, roles).
 *
 * Where the documents' prose states one of these numbers ("at most 64 KiB (65 536 bytes)"), the
 * phrase is listed in `prose` below and must be found in the document with the number read: the
 * prose and the number cannot drift apart either.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { documents } from "./documents.js";
import {
  adm,
  type DocumentName,
  groups,
  labels,
  type Labels,
  type List,
  lists,
  pub,
  schema,
  singles,
  type Source,
} from "./rule-sources.js";

type Node = Record<string, unknown>;

/** 65536 → "65 536", as the prose writes numbers. */
const spaced = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ");

/** 3600 → "1 hour", 86400 → "24 hours", as the prose writes a lifetime. */
const hours = (seconds: number) => (seconds === 3600 ? "1 hour" : `${seconds / 3600} hours`);

/** 604800 → "7 days". */
const days = (seconds: number) => `${seconds / 86400} days`;

/** A step of the retry schedule as the prose writes it: "at once", "5 s", "5 min", "2 h". */
const step = (seconds: number) =>
  seconds === 0
    ? "at once"
    : seconds < 60
      ? `${seconds} s`
      : seconds < 3600
        ? `${seconds / 60} min`
        : `${seconds / 3600} h`;

/**
 * The phrases of the documents' prose that state a number of the rules, from the values read:
 * each must be found in its document (whitespace folded), or the generation stops.
 */
function prose(
  v: Record<string, Record<string, number>>,
  listed: Record<string, readonly (number | string)[]>,
): { document: DocumentName; phrase: string }[] {
  const body = v.requestLimits!;
  const perMinute = v.rateLimitsPerMinute!;
  const logIns = v.failedLogIns!;
  const stepUps = v.failedStepUps!;
  const session = v.sessionLifetime!;
  const single = v.singles!;
  const bodyPhrase = `at most ${body.maxBodyBytes! / 1024} KiB (${spaced(body.maxBodyBytes!)} bytes)`;
  const windowMinutes = logIns.windowSeconds! / 60;
  const stepUpMinutes = single.stepUpSeconds! / 60;
  const expiry = v.defaultExpirySeconds!;
  const links = v.emailLinkSeconds!;
  const delivery = v.webhookDelivery!;
  const password = v.passwordLength!;
  const schedule = (listed.webhookRetryScheduleSeconds as number[]).map(step).join(", ");
  return [
    {
      document: "public",
      phrase: `Until when the Pix accepts payment. Default: ${hours(expiry.charge!)} after creation.`,
    },
    {
      document: "public",
      phrase: `Default: ${days(expiry.paymentLink!)} after creation. A charge made by the link expires at the earlier of its own default (${hours(expiry.charge!)})`,
    },
    { document: "public", phrase: `which expires then too). Default: ${hours(expiry.charge!)} after creation.` },
    { document: "dashboard", phrase: `confirmation e-mail (valid ${hours(links.confirmEmail!)}, once)` },
    { document: "dashboard", phrase: `reset e-mail (valid ${hours(links.resetPassword!)}, once)` },
    { document: "dashboard", phrase: `invitation e-mail (valid ${days(links.invitation!)}, once)` },
    { document: "dashboard", phrase: `The link works until then: ${days(links.invitation!)} after the invitation.` },
    { document: "dashboard", phrase: `a link to accept (valid ${days(links.invitation!)})` },
    {
      document: "public",
      phrase: `Reject timestamps more than ${delivery.signatureToleranceSeconds! / 60} minutes off. Retries: ${schedule}, with jitter; ${delivery.timeoutSeconds} s timeout;`,
    },
    { document: "public", phrase: `answer any 2xx within ${delivery.timeoutSeconds} seconds.` },
    { document: "dashboard", phrase: `A new password: ${password.min} to ${password.max} characters` },
    ...(["public", "admin", "dashboard"] as const).map((document) => ({ document, phrase: bodyPhrase })),
    { document: "public", phrase: `nest at most ${body.maxJsonDepth} deep` },
    {
      document: "public",
      phrase: `\`GET\` ${perMinute.get}/min, \`POST\` and \`PATCH\` ${perMinute.write}/min, \`POST /api/v1/withdrawals\` ${perMinute.withdrawals}/min`,
    },
    { document: "dashboard", phrase: `\`GET\` ${perMinute.get}/min, the others ${perMinute.write}/min` },
    { document: "public", phrase: `\`Retry-After: ${single.notReadyRetryAfterSeconds}\`` },
    { document: "public", phrase: `\`Retry-After\` (${single.serviceUnavailableRetryAfterSeconds} second)` },
    { document: "admin", phrase: `After ${single.operatorAuthFailuresPerMinute} failed authentications` },
    {
      document: "admin",
      phrase: `after ${single.operatorAuthFailuresPerMinute} requests with a missing or wrong token within a minute`,
    },
    {
      document: "dashboard",
      phrase: `per e-mail address (${logIns.perEmail} within ${windowMinutes} minutes) and per IP address (${logIns.perIp} within ${windowMinutes} minutes)`,
    },
    {
      document: "dashboard",
      phrase: `After ${logIns.perEmail} failures for one address within ${windowMinutes} minutes, or ${logIns.perIp} from one IP address`,
    },
    {
      document: "dashboard",
      phrase: `after ${session.idleSeconds! / 60} minutes without a request or ${session.absoluteSeconds! / 3600} hours after log-in`,
    },
    {
      document: "dashboard",
      phrase: `The latest the session can last: ${session.absoluteSeconds! / 3600} hours after log-in.`,
    },
    { document: "dashboard", phrase: `${session.idleSeconds! / 60} minutes after the last one.` },
    { document: "dashboard", phrase: `for the dangerous operations of the next ${stepUpMinutes} minutes` },
    { document: "dashboard", phrase: `No step-up in the last ${stepUpMinutes} minutes.` },
    { document: "dashboard", phrase: `stepped up for ${stepUpMinutes} minutes.` },
    {
      document: "dashboard",
      phrase: `the ${stepUps.perUser}th within ${stepUps.windowSeconds! / 60} minutes ends every session of the user and answers \`429 RATE_LIMITED\`; then, for ${stepUps.lockSeconds! / 60} minutes,`,
    },
  ];
}

/** Every string of a document, whitespace folded to single spaces. */
function textOf(node: unknown, out: string[] = []): string[] {
  if (typeof node === "string") out.push(node.replace(/\s+/g, " "));
  else if (Array.isArray(node)) for (const item of node) textOf(item, out);
  else if (node && typeof node === "object") for (const value of Object.values(node)) textOf(value, out);
  return out;
}

const permissionsSource = adm(schema("Permission", "enum"));
const statesSource = pub(schema("AddressInput", "properties/state/pattern"));

/** The node a pointer names, following `$ref` and one-member `allOf` where a segment is missing. */
function at(docs: Record<DocumentName, Node>, { document, pointer }: Source): unknown {
  const doc = docs[document];
  const segments = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: unknown = doc;
  for (const segment of segments) {
    for (let hops = 0; node && typeof node === "object" && !(segment in node); hops++) {
      const { $ref, allOf } = node as Node;
      if (hops > 10) break;
      if (typeof $ref === "string" && $ref.startsWith("#/")) node = at(docs, { document, pointer: $ref.slice(1) });
      else if (Array.isArray(allOf) && allOf.length === 1) node = allOf[0];
      else break;
    }
    if (!node || typeof node !== "object" || !(segment in node)) {
      throw new Error(`rules: ${document}#${pointer} names nothing (at "${segment}")`);
    }
    node = (node as Node)[segment];
  }
  return node;
}

/** A list's items, each an integer or a string as the list says. */
function listAt(docs: Record<DocumentName, Node>, list: List): readonly (number | string)[] {
  const value = at(docs, list);
  const fits = (item: unknown) => (list.of === "integer" ? Number.isSafeInteger(item) : typeof item === "string");
  if (!Array.isArray(value) || value.length === 0 || !value.every(fits)) {
    throw new Error(`rules: ${list.document}#${list.pointer} is ${JSON.stringify(value)}, not a list of ${list.of}s`);
  }
  return value as (number | string)[];
}

/** The labels of an enumeration's values, in the enumeration's order: one non-empty label per value. */
function labelsAt(docs: Record<DocumentName, Node>, source: Labels): [string, string][] {
  const values = listAt(docs, source.values) as string[];
  const words = at(docs, source);
  if (!words || typeof words !== "object" || Array.isArray(words)) {
    throw new Error(`rules: ${source.document}#${source.pointer} is ${JSON.stringify(words)}, not an object of labels`);
  }
  const table = words as Record<string, unknown>;
  const missing = values.filter((v) => typeof table[v] !== "string" || (table[v] as string).trim() === "");
  const extra = Object.keys(table).filter((k) => !values.includes(k));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `rules: ${source.document}#${source.pointer} must label each value of the enumeration once (without a label: ${missing.join(", ") || "none"}; not a value: ${extra.join(", ") || "none"})`,
    );
  }
  return values.map((v) => [v, table[v] as string]);
}

function numberAt(docs: Record<DocumentName, Node>, source: Source): number {
  const value = at(docs, source);
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new Error(`rules: ${source.document}#${source.pointer} is ${JSON.stringify(value)}, not an integer`);
  }
  return value;
}

/** The two-letter codes of a pattern `^(AC|AL|…)$`. */
function statesOf(pattern: unknown): string[] {
  const match = typeof pattern === "string" ? /^\^\(([A-Z]{2}(?:\|[A-Z]{2})*)\)\$$/.exec(pattern) : null;
  if (!match?.[1]) throw new Error(`rules: the state pattern ${JSON.stringify(pattern)} is not ^(UF|UF|…)$`);
  return match[1].split("|");
}

/** Rules between numbers that the spec states in words; the generation stops when one breaks. */
function checkRelations(
  values: Record<string, Record<string, number>>,
  permissions: string[],
  docs: Record<DocumentName, Node>,
) {
  const fail = (message: string) => {
    throw new Error(`rules: ${message}`);
  };
  if (values.planLimits?.maxWithdrawFeeCents !== (values.amountLimits?.minWithdrawalCents ?? 0) - 1) {
    fail("WithdrawFeeCents' maximum must be one below the smallest withdrawal (every withdrawal pays something out)");
  }
  const paths = (docs.public.paths ?? {}) as Record<string, Record<string, { "x-permission"?: string }>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const permission = op["x-permission"];
      if (permission !== undefined && !permissions.includes(permission)) {
        fail(`${method.toUpperCase()} ${path} requires ${permission}, which no key can hold (not a Permission)`);
      }
    }
  }
}

/**
 * Webhook delivery: the schedule starts at once and only grows, and every event's description
 * (`x-webhooks`) tells the receiver the timeout.
 */
function checkDelivery(schedule: number[], timeoutSeconds: number, docs: Record<DocumentName, Node>) {
  if (schedule[0] !== 0 || schedule.some((at, i) => i > 0 && at <= (schedule[i - 1] ?? 0))) {
    throw new Error(`rules: the webhook retry schedule ${JSON.stringify(schedule)} must start at 0 and grow`);
  }
  const hooks = (docs.public["x-webhooks"] ?? {}) as Record<string, { post?: { description?: string } }>;
  for (const [event, item] of Object.entries(hooks)) {
    if (!item.post?.description?.includes(`answer any 2xx within ${timeoutSeconds} seconds`)) {
      throw new Error(`rules: the ${event} webhook's description does not say the ${timeoutSeconds}-second timeout`);
    }
  }
}

/** Items joined with ", ", as lines of at most 100 columns indented by two. */
function wrap(items: string[]): string[] {
  const lines: string[] = [];
  for (const item of items) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + item.length + 2 <= 100) lines[lines.length - 1] = `${last} ${item},`;
    else lines.push(`  ${item},`);
  }
  return lines;
}

const where = (source: Source) =>
  `${documents.find((d) => d.name === source.document)?.openapi ?? source.document}#${source.pointer}`;

/** The text of `rules.ts` for the documents (parsed) by name. */
function renderRules(docs: Record<DocumentName, Node>): string {
  const values: Record<string, Record<string, number>> = {};
  const permissionsValue = at(docs, permissionsSource);
  if (!Array.isArray(permissionsValue) || !permissionsValue.every((p) => typeof p === "string")) {
    throw new Error("rules: Permission is no enumeration of strings");
  }
  const permissions = permissionsValue as string[];
  const states = statesOf(at(docs, statesSource));
  const lines = [
    "// Generated by scripts/generate.ts (scripts/generate/emit-rules.ts) from the OpenAPI documents. Do",
    "// not edit: change the number in spec/ and run `npm run generate`.",
    "//",
    "// The numbers of the rules, each read from where the spec writes it (the comment on each value):",
    "// a schema keyword, or an `x-` extension the TypeSpec sets with `@extension` where no keyword can",
    "// carry the number (`x-default`, `x-max-key-length`, `x-max-json-bytes`, `x-replay-window-seconds`,",
    "// `x-refund-window-days`, `x-secret-overlap-seconds`, the request limits at each document's root,",
    "// `x-retry-after-seconds`, the dashboard's `x-failed-log-ins`, `x-step-up-seconds`,",
    "// `x-idle-seconds`, `x-seconds-after-log-in`, `x-default-seconds-after-creation`, `x-valid-seconds`,",
    "// `x-webhook-delivery`). The lists are arrays of a document (the retry schedule, enumerations); the",
    "// labels an enumeration's `x-labels`, one for each of its values. The",
    "// permissions are the `Permission` enumeration, the states the alternatives of the address's",
    "// `state` pattern.",
    "",
  ];
  for (const [name, group] of Object.entries(groups)) {
    values[name] = {};
    lines.push(`/** ${group.doc} */`, `export const ${name} = {`);
    for (const [key, source] of Object.entries(group.values)) {
      const value = numberAt(docs, source);
      values[name][key] = value;
      lines.push(`  /** ${where(source)} */`, `  ${key}: ${value},`);
    }
    lines.push("} as const;", "");
  }
  values.singles = {};
  for (const [name, single] of Object.entries(singles)) {
    values.singles[name] = numberAt(docs, single);
    lines.push(
      "/**",
      ` * ${single.doc}`,
      ` * ${where(single)}`,
      " */",
      `export const ${name} = ${numberAt(docs, single)};`,
      "",
    );
  }
  const listed: Record<string, readonly (number | string)[]> = {};
  for (const [name, list] of Object.entries(lists)) {
    const items = listAt(docs, list);
    listed[name] = items;
    const inline = `export const ${name} = [${items.map((item) => JSON.stringify(item)).join(", ")}] as const;`;
    lines.push(
      "/**",
      ` * ${list.doc}`,
      ` * ${where(list)}`,
      " */",
      ...(inline.length <= 100
        ? [inline]
        : [`export const ${name} = [`, ...wrap(items.map((item) => JSON.stringify(item))), "] as const;"]),
      "",
    );
  }
  for (const [name, source] of Object.entries(labels)) {
    lines.push(
      "/**",
      ` * ${source.doc}`,
      ` * ${where(source)}`,
      " */",
      `export const ${name} = {`,
      ...labelsAt(docs, source).map(([value, label]) => `  ${value}: ${JSON.stringify(label)},`),
      "} as const;",
      "",
    );
  }
  checkRelations(values, permissions, docs);
  checkDelivery(listed.webhookRetryScheduleSeconds as number[], values.webhookDelivery!.timeoutSeconds!, docs);
  for (const { document, phrase } of prose(values, listed)) {
    if (!textOf(docs[document]).some((text) => text.includes(phrase))) {
      throw new Error(
        `rules: the ${document} document's prose no longer says "${phrase}": write the number once, in spec/`,
      );
    }
  }
  lines.push(
    `/** Every permission an API key can hold (${where(permissionsSource)}). */`,
    "export const permissions = [",
    ...permissions.map((p) => `  ${JSON.stringify(p)},`),
    "] as const;",
    "",
    "export type Permission = (typeof permissions)[number];",
    "",
    "const permissionSet: ReadonlySet<string> = new Set(permissions);",
    "",
    "/** Whether a string is a permission of the spec. */",
    "export const isPermission = (value: string): value is Permission => permissionSet.has(value);",
    "",
    `/** The ${states.length} federative units an address can be in (${where(statesSource)}). */`,
    "export const brazilianStates = [",
    ...wrap(states.map((s) => JSON.stringify(s))),
    "] as const;",
    "",
  );
  return lines.join("\n");
}

/** Reads the documents just written to `outDir` and writes `rules.ts` beside them. */
export function emitRules(outDir: string): void {
  const docs = Object.fromEntries(
    documents.map((d) => [d.name, parse(readFileSync(join(outDir, d.openapi), "utf8")) as Node]),
  ) as Record<DocumentName, Node>;
  writeFileSync(join(outDir, "rules.ts"), renderRules(docs));
}
