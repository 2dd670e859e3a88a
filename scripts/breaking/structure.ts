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
export function selfContained(document: OpenApiDocument): OpenApiDocument {
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
function withoutEqualParts(was: OpenApiDocument, is: OpenApiDocument): [OpenApiDocument, OpenApiDocument] {
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
  stubEqualAlternatives(before, after);
  return [before, after];
}

/**
 * Where both documents have an `anyOf` or `oneOf` at the same place, each alternative equal in both
 * at the same index becomes the same small stub on both sides. api-smart-diff matches every
 * alternative of one list with every alternative of the other: the event (19 kinds in the release,
 * 20 now, each with its payload) cost 12 s of CPU per operation that shows one, 38 of the check's
 * 45 s. An alternative equal at its index has no difference to find; its stub keeps the index, so
 * every difference keeps its place (the acknowledgements name `anyOf.19`), and `breaks` reads the
 * documents as they are. A stub names its index: it matches its twin and no real alternative.
 */
function stubEqualAlternatives(before: unknown, after: unknown): void {
  if (!before || !after || typeof before !== "object" || typeof after !== "object") return;
  if (Array.isArray(before) !== Array.isArray(after)) return;
  const [was, is] = [before as Node, after as Node];
  for (const key of Object.keys(was)) {
    if (!(key in is)) continue;
    const [a, b] = [was[key], is[key]];
    if ((key === "anyOf" || key === "oneOf") && Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        if (!isDeepStrictEqual(a[i], b[i])) continue;
        a[i] = { type: "string", enum: [`check:breaking equal alternative ${i}`] };
        b[i] = { type: "string", enum: [`check:breaking equal alternative ${i}`] };
      }
    }
    stubEqualAlternatives(a, b);
  }
}

/** The breaking differences api-smart-diff finds between two documents' operations. */
export function structuralDifferences(before: OpenApiDocument, after: OpenApiDocument): BreakingDifference[] {
  const [was, is] = [selfContained(withoutBounds(before)), selfContained(withoutBounds(after))];
  return apiDiff(...withoutEqualParts(was, is))
    .filter((d) => d.path[0] === "paths" && breaks(d, was, is))
    .map((d) => ({
      code: codeOf(d.path, d.action),
      location: locationOf(d.path, was, is),
      from: valueOf(d.before),
      to: valueOf(d.after),
    }));
}
