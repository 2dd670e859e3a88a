/**
 * The structure of two documents compared by api-smart-diff: operations, parameters (name,
 * location, required, schema), request and response bodies, fields, required fields, types, enums,
 * statuses, media types, security. It classifies each change by direction: a request that accepts
 * less, or a response that may carry more (a removed field, a new value of an enum), is breaking.
 *
 * It compares the documents as written, so each is first made self-contained (`selfContained`):
 * every `$ref` inlined, which makes moving a keyword between a property and the schema it refers
 * to no change at all (api-smart-diff merges `allOf`). What it need not see is taken out: bounds,
 * which `./bounds.ts` compares (it samples patterns, which a textual diff cannot), annotations
 * (descriptions, examples), vendor extensions (`x-…`, read by tools, not clients), and the width of
 * integers (`int32`/`int64`), which only restates the `minimum`/`maximum` every integer declares
 * (spectral's `owasp:api4:2023-integer-limit-legacy`).
 */
import { isDeepStrictEqual } from "node:util";
import { apiDiff } from "api-smart-diff";
import { withoutBounds } from "./bounds.js";
import { breaks } from "./rules.js";
import { type BreakingDifference, methods, type OpenApiDocument, place, valueOf } from "./difference.js";

type Node = Record<string, unknown>;
type Parameter = { in?: string; name?: string };

/** Keywords whose value is text for people, never a rule (when they hold text, not a schema). */
const annotations = new Set(["description", "summary", "title"]);
/** Keywords whose value is sample data: never a rule, whatever it holds. */
const samples = new Set(["example", "examples"]);

/**
 * A copy of the document whose operations hold every schema and parameter themselves: `$ref`s
 * inlined (a sibling keyword beside a `$ref` joins it in an `allOf`), path-level parameters moved
 * into each operation, annotations, extensions and integer widths dropped, `components` gone.
 */
function selfContained(document: OpenApiDocument): OpenApiDocument {
  const target = (ref: string, trail: string[]): unknown => {
    if (trail.includes(ref)) throw new Error(`check:breaking: recursive schema ${ref} (${trail.join(" → ")})`);
    if (!ref.startsWith("#/")) throw new Error(`check:breaking: only local references are supported: ${ref}`);
    return ref
      .slice(2)
      .split("/")
      .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((at, key) => (at && typeof at === "object" ? (at as Node)[key] : undefined), document);
  };
  // `names`: the node is a map from property names to schemas, whose keys are never keywords.
  const copy = (node: unknown, trail: string[], names = false): unknown => {
    if (Array.isArray(node)) return node.map((item) => copy(item, trail));
    if (!node || typeof node !== "object") return node;
    const { $ref, ...rest } = node as Node;
    if (typeof $ref === "string") {
      const inlined = copy(target($ref, trail), [...trail, $ref]);
      const siblings = copy(rest, trail) as Node;
      return Object.keys(siblings).length > 0
        ? { ...siblings, allOf: [inlined, ...((siblings.allOf as []) ?? [])] }
        : inlined;
    }
    const out: Node = {};
    for (const [key, value] of Object.entries(rest)) {
      if (!names && (samples.has(key) || (annotations.has(key) && typeof value === "string"))) continue;
      if (!names && key === "format" && (value === "int32" || value === "int64")) continue;
      if (!names && key.startsWith("x-")) continue;
      out[key] = copy(value, trail, !names && (key === "properties" || key === "patternProperties"));
    }
    return out;
  };
  const paths: Node = {};
  for (const [path, raw] of Object.entries(document.paths ?? {})) {
    const item = copy(raw, []) as Node;
    const shared = (item.parameters as Parameter[] | undefined) ?? [];
    delete item.parameters;
    for (const method of methods) {
      const operation = item[method] as Node | undefined;
      if (!operation || shared.length === 0) continue;
      const own = (operation.parameters as Parameter[] | undefined) ?? [];
      const overridden = (p: Parameter) => own.some((o) => o.in === p.in && o.name === p.name);
      operation.parameters = [...own, ...shared.filter((p) => !overridden(p))];
    }
    paths[path] = item;
  }
  const { components: _components, ...rest } = document;
  return { ...(copy(rest, []) as OpenApiDocument), paths };
}

function operationIn(document: OpenApiDocument, path: string, method: string): Node | undefined {
  const paths = (document.paths ?? {}) as Record<string, Node>;
  const key = path in paths ? path : Object.keys(paths).find((p) => place(p) === place(path));
  return key === undefined ? undefined : (paths[key]?.[method] as Node | undefined);
}

/** Schema keywords that name the kind of a change in its code (`response.body.enum.add`). */
const keywords = new Set(["enum", "required", "type", "nullable", "format", "additionalProperties", "items"]);
/** Lists whose members are values: one is named by its value (`from`/`to`), not by its index. */
const valueLists = new Set(["enum", "required"]);

/**
 * api-smart-diff names a list member by its index: in the released list when it was there, after
 * the released list's end when it is new. A parameter is renamed `<in>:<name>`, and a member of an
 * enum or a required list loses its index (its value is the difference's `from` or `to`).
 */
function locationOf(path: (string | number)[], before: OpenApiDocument, after: OpenApiDocument): string {
  const segments = path.map(String);
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const index = Number(segment);
    if (i > 0 && valueLists.has(segments[i - 1] as string) && Number.isInteger(index)) continue;
    if (i === 4 && segments[3] === "parameters" && Number.isInteger(index)) {
      const [path, method] = [segments[1] as string, segments[2] as string];
      const was = (operationIn(before, path, method)?.parameters as Parameter[] | undefined) ?? [];
      const is = (operationIn(after, path, method)?.parameters as Parameter[] | undefined) ?? [];
      const added = is.filter((p) => !was.some((w) => w.in === p.in && w.name === p.name));
      const parameter = index < was.length ? was[index] : added[index - was.length];
      out.push(parameter ? `${parameter.in}:${parameter.name}` : segment);
    } else out.push(segment);
  }
  return out.join(".");
}

function codeOf(path: (string | number)[], action: string): string {
  const segments = path.map(String);
  const role =
    segments.length <= 2
      ? "path"
      : segments[3] === "parameters"
        ? "request.parameter"
        : segments[3] === "requestBody"
          ? "request.body"
          : segments[3] === "responses"
            ? segments.length <= 5
              ? "response.status"
              : "response.body"
            : "operation";
  const named = segments.filter((s) => !Number.isInteger(Number(s))).at(-1) ?? "";
  const keyword = keywords.has(named) && segments.length > 4 ? `.${named}` : "";
  return `${role}${keyword}.${action}`;
}

/**
 * Copies of the two self-contained documents for api-smart-diff, without what is equal in both: an
 * operation (the same path and method) or one of its responses (the same status) with the same
 * value, where nothing can differ. api-smart-diff classifies every node it walks, equal or not: a
 * comparison of a document with itself changed in one schema took 1.5 s of CPU. The copies are
 * also its to write into (it adds an empty `enum` where the other side has one); the rules read
 * the documents as they are.
 */
function withoutEqualParts(
  was: OpenApiDocument,
  is: OpenApiDocument,
): { before: OpenApiDocument; after: OpenApiDocument; pairs: Pair[] } {
  const [before, after] = [structuredClone(was), structuredClone(is)];
  const pathsBefore = (before.paths ?? {}) as Record<string, Node>;
  const pathsAfter = (after.paths ?? {}) as Record<string, Node>;
  /** Deletes `key` from both when its values are equal; whether it did. */
  const dropEqual = (a: Node, b: Node, key: string) => {
    if (!(key in a) || !(key in b) || !isDeepStrictEqual(a[key], b[key])) return false;
    delete a[key];
    delete b[key];
    return true;
  };
  for (const [path, itemAfter] of Object.entries(pathsAfter)) {
    const itemBefore = pathsBefore[path];
    if (!itemBefore || dropEqual(pathsBefore, pathsAfter, path)) continue;
    for (const method of methods) {
      const [operationBefore, operationAfter] = [itemBefore[method], itemAfter[method]] as (Node | undefined)[];
      if (!operationBefore || !operationAfter || dropEqual(itemBefore, itemAfter, method)) continue;
      const [responsesBefore, responsesAfter] = [operationBefore.responses, operationAfter.responses] as (
        Node | undefined
      )[];
      if (responsesBefore && responsesAfter)
        for (const status of Object.keys(responsesAfter)) dropEqual(responsesBefore, responsesAfter, status);
    }
  }
  const pairs: Pair[] = [];
  setAsideAlternatives(before, after, [], pairs);
  return { before, after, pairs };
}

type Path = (string | number)[];

/** Two alternatives of a union that correspond, at `path` (`…anyOf.<index>`) in both documents. */
interface Pair {
  path: Path;
  before: unknown;
  after: unknown;
}

const isNode = (value: unknown): value is Node => Boolean(value) && typeof value === "object";

/** What stands for an alternative set aside: it names its index, so it matches its twin and nothing else. */
const stub = (index: number) => ({ type: "string", enum: [`check:breaking alternative ${index}`] });

/**
 * The value of `name` that tells an alternative apart (`properties.<name>` with a one-value `enum`,
 * as an event's `type`), as text; undefined where it has none.
 */
function tagOf(alternative: unknown, name: string): string | undefined {
  const values = isNode(alternative) && isNode(alternative.properties) ? alternative.properties[name] : undefined;
  const allowed = isNode(values) ? values.enum : undefined;
  return Array.isArray(allowed) && allowed.length === 1 ? JSON.stringify(allowed[0]) : undefined;
}

/**
 * Whether the two lists are one discriminated union at two times, in the same order: a property
 * every alternative of both fixes to one value, the values distinct within each list, and the same
 * value at each index both lists have. Then the alternatives at one index are one member changed.
 */
function alignedByTag(before: unknown[], after: unknown[]): boolean {
  const first = before[0];
  const names = isNode(first) && isNode(first.properties) ? Object.keys(first.properties) : [];
  return names.some((name) => {
    const [was, is] = [before.map((a) => tagOf(a, name)), after.map((a) => tagOf(a, name))];
    if ([...was, ...is].some((tag) => tag === undefined)) return false;
    if (new Set(was).size !== was.length || new Set(is).size !== is.length) return false;
    return was.every((tag, i) => i >= is.length || tag === is[i]);
  });
}

/**
 * A union whose alternatives may be compared one pair at a time: inside a response or a request
 * body, and not inside a merged `allOf` or another union (where api-smart-diff's places are not the
 * documents' own).
 */
const splittable = (path: Path) =>
  path[0] === "paths" &&
  (path[3] === "responses" || path[3] === "requestBody") &&
  !path.some((segment) => segment === "allOf" || segment === "anyOf" || segment === "oneOf");

/**
 * Where both documents have an `anyOf` or `oneOf` at the same place, api-smart-diff compares every
 * alternative of one list with every alternative of the other and keeps the pairs with the fewest
 * differences: the event (19 kinds in the release, 20 now, each with its payload) cost 12 s of CPU
 * per operation that shows one, 37 of the dashboard document's 41 s. So, before it runs:
 * - an alternative equal in both at its index becomes the same stub on both sides (no difference
 *   to find there);
 * - in a union whose alternatives line up by their tag (`alignedByTag`: the same kind at the same
 *   index), each changed pair is taken out into `pairs`, to be compared on its own
 *   (`pairDifferences`), and stubbed likewise.
 * A stub keeps its index, so every difference keeps its place (the acknowledgements name
 * `anyOf.19`); an alternative only one side has stays, and is found added or removed as before; a
 * stub is matched with its twin before any comparison could pair it otherwise. `breaks` reads the
 * documents as they are.
 */
function setAsideAlternatives(before: unknown, after: unknown, path: Path, pairs: Pair[]): void {
  if (!isNode(before) || !isNode(after) || Array.isArray(before) !== Array.isArray(after)) return;
  for (const key of Object.keys(before)) {
    if (!(key in after)) continue;
    const [a, b] = [before[key], after[key]];
    if ((key === "anyOf" || key === "oneOf") && Array.isArray(a) && Array.isArray(b)) {
      const paired = splittable(path) && alignedByTag(a, b);
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        if (isDeepStrictEqual(a[i], b[i])) [a[i], b[i]] = [stub(i), stub(i)];
        else if (paired) {
          pairs.push({ path: [...path, key, i], before: a[i], after: b[i] });
          [a[i], b[i]] = [stub(i), stub(i)];
        }
      }
      // Not within: the alternatives left are compared with each other, and a stub inside one
      // would move which it is paired with.
      continue;
    }
    setAsideAlternatives(a, b, [...path, Array.isArray(before) ? Number(key) : key], pairs);
  }
}

/**
 * A copy of `document` that holds only the way to `path`: each node on it keeps the next one and
 * its own plain values (`type`, `required`, `nullable`…), not its other members (the other
 * fields, responses and operations); the node at `path` becomes `value`.
 */
function wayTo(document: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...Path];
  const node = isNode(document) ? document : {};
  if (Array.isArray(node)) return node.map((item, i) => (i === key ? wayTo(item, rest, value) : item));
  const plain = ([, member]: [string, unknown]) =>
    !isNode(member) || (Array.isArray(member) && member.every((item) => !isNode(item)));
  return { ...Object.fromEntries(Object.entries(node).filter(plain)), [key]: wayTo(node[key], rest, value) };
}

/**
 * One pair's differences: each document reduced to the way to the pair (`wayTo`: the union keeps
 * its stubs, and the pair's alternative is back at its index); of what api-smart-diff finds there,
 * what lies within the pair (anything else is the whole comparison's to find).
 */
function pairDifferences(before: OpenApiDocument, after: OpenApiDocument, pair: Pair) {
  const within = (path: Path) => pair.path.every((segment, i) => String(path[i]) === String(segment));
  const [was, is] = [wayTo(before, pair.path, pair.before), wayTo(after, pair.path, pair.after)];
  return apiDiff(was, is).filter((d) => within(d.path));
}

/** The breaking differences api-smart-diff finds between two documents' operations. */
export function structuralDifferences(before: OpenApiDocument, after: OpenApiDocument): BreakingDifference[] {
  const [was, is] = [selfContained(withoutBounds(before)), selfContained(withoutBounds(after))];
  const parts = withoutEqualParts(was, is);
  return [
    ...apiDiff(parts.before, parts.after),
    ...parts.pairs.flatMap((pair) => pairDifferences(parts.before, parts.after, pair)),
  ]
    .filter((d) => d.path[0] === "paths" && breaks(d, was, is))
    .map((d) => ({
      code: codeOf(d.path, d.action),
      location: locationOf(d.path, was, is),
      from: valueOf(d.before),
      to: valueOf(d.after),
    }));
}
