/**
 * Bounds (lengths, ranges, counts, patterns) compared by a walk of our own, operation by operation,
 * with `$ref` and `allOf` flattened so that moving a bound between a property and the schema it
 * refers to changes nothing. They are taken out of what the structural comparison sees
 * (`withoutBounds`): a textual diff can tell a lowered maximum, but not whether a changed pattern
 * accepts fewer strings, and the tools tried before (openapi-diff's json-schema-diff) ran for more
 * than 40 minutes once every string had a `maxLength`.
 *
 * Two regular expressions are compared by sampling (`patternChange`): strings drawn from each are
 * tested against the other. A string the other refuses proves the difference, so sampling never
 * reports one that is not there; it can miss one it does not draw, which is why it draws hundreds.
 */
import fc from "fast-check";
import { type BreakingDifference, place, type Value } from "./difference.js";

type Node = Record<string, unknown>;
type Document = { paths?: Record<string, unknown>; components?: unknown; [key: string]: unknown };

/** Raising one of these accepts fewer values. */
const lowerBounds = ["minLength", "minimum", "minItems", "minProperties"] as const;
/** Lowering one of these accepts fewer values. */
const upperBounds = ["maxLength", "maximum", "maxItems", "maxProperties"] as const;
/** OpenAPI 3.0 spells exclusivity as a boolean beside `minimum`/`maximum`: `true` accepts fewer values. */
const flags = ["exclusiveMinimum", "exclusiveMaximum"] as const;
const boundKeywords = new Set<string>([...lowerBounds, ...upperBounds, ...flags, "pattern"]);
/** Subtrees that hold sample values, not schemas: a key there is data. */
const dataKeys = new Set(["example", "examples", "default", "enum"]);

/** A copy of the document without any bound keyword in its schemas (examples are left as they are). */
export function withoutBounds<T>(document: T): T {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== "object") return node;
    const copy: Node = {};
    for (const [key, value] of Object.entries(node)) {
      if (dataKeys.has(key)) copy[key] = value;
      else if (!(boundKeywords.has(key) && (typeof value !== "object" || value === null))) copy[key] = strip(value);
    }
    return copy;
  };
  return strip(document) as T;
}

interface Bounds {
  [keyword: string]: number | boolean | string[] | undefined;
}

/** Follows a local `$ref` (`#/components/...`); any other node is returned as it is. */
function resolver(document: Document) {
  return (node: unknown): Node | undefined => {
    let current = node;
    for (let hops = 0; hops < 32 && current && typeof current === "object" && "$ref" in current; hops++) {
      const ref = (current as { $ref: unknown }).$ref;
      if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
      current = ref
        .slice(2)
        .split("/")
        .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
        .reduce<unknown>((at, key) => (at && typeof at === "object" ? (at as Node)[key] : undefined), document);
    }
    return current && typeof current === "object" ? (current as Node) : undefined;
  };
}

/** The tighter of two values of one keyword. */
function tighter(keyword: string, a: Bounds[string], b: Bounds[string]): Bounds[string] {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (keyword === "pattern") return [...new Set([...(a as string[]), ...(b as string[])])].sort();
  if ((lowerBounds as readonly string[]).includes(keyword)) return Math.max(a as number, b as number);
  if ((upperBounds as readonly string[]).includes(keyword)) return Math.min(a as number, b as number);
  return a === true || b === true;
}

/**
 * Every schema node under `pointer`, keyed by a location that names properties rather than
 * `$ref`s or `allOf` members, with the bounds that hold there (the tightest of the node and of
 * every schema it is composed of).
 */
function collect(
  resolve: (node: unknown) => Node | undefined,
  root: unknown,
  pointer: string,
  into: Map<string, Bounds>,
) {
  const visit = (schemas: unknown[], at: string, stack: Set<unknown>) => {
    // Flatten `$ref` and `allOf` into one view: bounds merged, children grouped by where they sit.
    // A `not` is left out: its bounds count the other way round, and the documents have none.
    const bounds: Bounds = {};
    const children = new Map<string, unknown[]>();
    const add = (key: string, child: unknown) => children.set(key, [...(children.get(key) ?? []), child]);
    const queue = [...schemas];
    const seen = new Set<Node>();
    while (queue.length > 0) {
      const schema = resolve(queue.shift());
      if (!schema || seen.has(schema) || stack.has(schema)) continue;
      seen.add(schema);
      for (const keyword of boundKeywords) {
        const value = schema[keyword];
        if (value === undefined || (typeof value === "object" && value !== null)) continue;
        bounds[keyword] = tighter(keyword, bounds[keyword], keyword === "pattern" ? [String(value)] : (value as never));
      }
      if (Array.isArray(schema.allOf)) queue.push(...schema.allOf);
      for (const [name, child] of Object.entries((schema.properties as Node | undefined) ?? {}))
        add(`properties.${name}`, child);
      if (schema.items) add("items", schema.items);
      if (schema.additionalProperties && typeof schema.additionalProperties === "object")
        add("additionalProperties", schema.additionalProperties);
      for (const kind of ["anyOf", "oneOf"] as const) {
        if (Array.isArray(schema[kind])) (schema[kind] as unknown[]).forEach((c, i) => add(`${kind}.${i}`, c));
      }
    }
    into.set(at, bounds);
    const inner = new Set([...stack, ...seen]);
    for (const [key, group] of children) visit(group, `${at}.${key}`, inner);
  };
  visit([root], pointer, new Set());
}

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

type Role = "request.body" | "request.parameter" | "response.body";

/** Every schema location of the document's operations, with its bounds and the role it plays. */
function boundsOf(document: Document): Map<string, { role: Role; bounds: Bounds }> {
  const resolve = resolver(document);
  const found = new Map<string, { role: Role; bounds: Bounds }>();
  const gather = (role: Role, schema: unknown, at: string) => {
    const part = new Map<string, Bounds>();
    collect(resolve, schema, at, part);
    for (const [location, bounds] of part) found.set(location, { role, bounds });
  };
  const content = (role: Role, holder: Node | undefined, at: string) => {
    for (const [mediaType, media] of Object.entries((holder?.content as Node | undefined) ?? {})) {
      const schema = (media as Node | undefined)?.schema;
      if (schema) gather(role, schema, `${at}.content.${mediaType}.schema`);
    }
  };
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const item = resolve(rawItem) ?? {};
    for (const method of methods) {
      const operation = resolve(item[method]);
      if (!operation) continue;
      const at = `paths.${path}.${method}`;
      const parameters = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])];
      for (const raw of parameters) {
        const parameter = resolve(raw);
        if (parameter?.schema)
          gather("request.parameter", parameter.schema, `${at}.parameters.${parameter.in}:${parameter.name}`);
      }
      content("request.body", resolve(operation.requestBody), `${at}.requestBody`);
      for (const [status, response] of Object.entries((operation.responses as Node | undefined) ?? {}))
        content("response.body", resolve(response), `${at}.responses.${status}`);
    }
  }
  return found;
}

const samples = 400;
const sampled = new Map<string, { narrower: boolean; wider: boolean }>();

/**
 * Whether each of two patterns matches a string the other refuses: `after` then narrows, or widens.
 * When fast-check cannot draw strings of a pattern (a construct it does not model), the change is
 * taken as both, the safe answer.
 */
function patternChange(before: string[], after: string[]): { narrower: boolean; wider: boolean } {
  const key = JSON.stringify([before, after]);
  const known = sampled.get(key);
  if (known) return known;
  const compile = (patterns: string[]) => patterns.map((p) => new RegExp(p, "u"));
  const [was, is] = [compile(before), compile(after)];
  const escapes = (from: RegExp[], to: RegExp[]): boolean => {
    let drawn: string[];
    try {
      drawn = fc.sample(fc.stringMatching(from[0] as RegExp), { seed: 20261123, numRuns: samples });
    } catch {
      return true;
    }
    const members = drawn.filter((s) => from.every((r) => r.test(s)));
    return members.length < samples / 2 || members.some((s) => !to.every((r) => r.test(s)));
  };
  const change = { narrower: escapes(was, is), wider: escapes(is, was) };
  sampled.set(key, change);
  return change;
}

/** Whether `after` accepts fewer values than `before` (narrower) and whether it accepts more (wider). */
function compare(before: Bounds, after: Bounds): { narrower: string[]; wider: string[] } {
  const narrower: string[] = [];
  const wider: string[] = [];
  for (const keyword of boundKeywords) {
    const [b, a] = [before[keyword], after[keyword]];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    if (keyword === "pattern") {
      // A new pattern narrows and a dropped one widens; a changed one is sampled.
      const change =
        a && b ? patternChange(b as string[], a as string[]) : { narrower: a !== undefined, wider: b !== undefined };
      if (change.narrower) narrower.push(keyword);
      if (change.wider) wider.push(keyword);
    } else if ((lowerBounds as readonly string[]).includes(keyword)) {
      if (a !== undefined && (b === undefined || (a as number) > (b as number))) narrower.push(keyword);
      else wider.push(keyword);
    } else if ((upperBounds as readonly string[]).includes(keyword)) {
      if (a !== undefined && (b === undefined || (a as number) < (b as number))) narrower.push(keyword);
      else wider.push(keyword);
    } else if (a === true) narrower.push(keyword);
    else wider.push(keyword);
  }
  return { narrower, wider };
}

/** A bound as a difference shows it: a number or a flag, one pattern, or the patterns that all hold. */
const shown = (value: Bounds[string]): Value =>
  value === undefined ? "absent" : Array.isArray(value) && value.length === 1 ? (value[0] as string) : value;

/**
 * Breaking bound changes between two documents, one per keyword: a request (body or parameter) that
 * accepts fewer values, or a response (webhook payloads included, as responses) that may carry
 * more. Locations present in only one document are left to the structural comparison.
 */
export function boundDifferences(before: Document, after: Document): BreakingDifference[] {
  const was = new Map([...boundsOf(before)].map(([location, found]) => [place(location), found]));
  const differences: BreakingDifference[] = [];
  for (const [location, { role, bounds }] of boundsOf(after)) {
    const old = was.get(place(location));
    if (!old) continue;
    const { narrower, wider } = compare(old.bounds, bounds);
    const [code, keywords] =
      role === "response.body" ? ["response.body.scope.add", wider] : [`${role}.scope.remove`, narrower];
    for (const keyword of keywords)
      differences.push({
        code,
        location: `${location}.${keyword}`,
        from: shown(old.bounds[keyword]),
        to: shown(bounds[keyword]),
      });
  }
  return differences;
}
