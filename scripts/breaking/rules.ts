/**
 * Which of the changes api-smart-diff finds break a client. It classifies each change itself, but
 * version 1.0.6 gets several backwards (tests in `diff.test.ts` show each): a changed type in a
 * response reads as compatible; `nullable` is judged the wrong way round in both directions; a
 * field removed from a sealed request schema reads as compatible; a whole enum given to a request
 * field reads as values added; unsealing a response reads as breaking. So the rules of
 * `spec/releases/README.md` decide here, by the keyword that changed and the direction the data
 * flows (requests and parameters: what a client sends; responses and webhook payloads: what it
 * reads); api-smart-diff's own class is kept only for what these rules do not name (security,
 * servers, serialization details).
 */
import type { Diff } from "api-smart-diff";

type Node = Record<string, unknown>;
type Flow = "request" | "response";

/**
 * A keyword's value in a schema, or in the schemas its `allOf` combines (objects found in several
 * are merged): api-smart-diff merges `allOf` before comparing, so its paths skip them.
 */
function child(node: unknown, key: string | number): unknown {
  if (!node || typeof node !== "object") return undefined;
  const found: unknown[] = [];
  const collect = (schema: unknown) => {
    if (!schema || typeof schema !== "object") return;
    if (key in schema) found.push((schema as Node)[key]);
    for (const member of ((schema as Node).allOf as unknown[] | undefined) ?? []) collect(member);
  };
  collect(node);
  const objects = found.filter((v) => v && typeof v === "object" && !Array.isArray(v));
  return objects.length > 1 && objects.length === found.length ? Object.assign({}, ...objects) : found[0];
}

/** The node at an api-smart-diff path, in a document as it was given to api-smart-diff. */
const nodeAt = (document: unknown, path: readonly (string | number)[]): unknown => path.reduce(child, document);

const isIndex = (segment: string | number) => Number.isInteger(Number(segment));
const narrowsAsRequest = (flow: Flow) => flow === "request";

/**
 * The class of one change to a schema keyword: `true` when it breaks, `false` when it does not,
 * `undefined` when the rules name no such keyword. `narrower` says whether the change accepts fewer
 * values: that breaks a request, the opposite (`!narrower`) breaks a response.
 */
function schemaChange(diff: Diff, flow: Flow, was: unknown, is: unknown): boolean | undefined {
  const path = diff.path;
  // The keyword that changed: the last segment that is neither an index nor a field's name.
  const member = isIndex(path.at(-1) as string | number);
  const named = path.at(-2) === "properties" ? undefined : [...path].reverse().find((s) => !isIndex(s));
  const directional = (narrower: boolean) => (narrowsAsRequest(flow) ? narrower : !narrower);
  const parent = path.slice(0, member ? -2 : -1);
  switch (named) {
    case "type": {
      if (diff.action === "add") return directional(true);
      if (diff.action === "remove") return directional(false);
      const widened = diff.before === "integer" && diff.after === "number";
      const narrowed = diff.before === "number" && diff.after === "integer";
      return flow === "request" ? !widened : !narrowed;
    }
    case "nullable":
      return directional(diff.after !== true);
    case "enum": {
      // A whole enum given (or taken) narrows (or widens) the field; a value added to an enum
      // that was there widens it, a value removed narrows it.
      const had = Array.isArray(nodeAt(was, [...parent, "enum"]));
      const has = Array.isArray(nodeAt(is, [...parent, "enum"]));
      if (!had) return directional(true);
      if (!has) return directional(false);
      return directional(diff.action === "remove");
    }
    case "required":
      return directional(diff.action !== "remove");
    case "additionalProperties":
      // Unsealing widens; a response that may carry unknown fields breaks no client (README).
      return flow === "request" && diff.after === false;
    case "format":
      return diff.action === "replace" || directional(diff.action === "add");
    case "anyOf":
    case "oneOf":
      return member ? directional(diff.action === "remove") : undefined;
    case "allOf":
      return member ? directional(diff.action === "add") : undefined;
    case "items":
      return directional(diff.action === "add");
    case "default":
      return flow === "request" && diff.action !== "add";
    case "readOnly":
    case "writeOnly":
    case "deprecated":
    case "discriminator":
    case "xml":
      return false;
  }
  if (path.at(-2) === "properties" && diff.action !== "replace") {
    // A new field breaks nothing by itself (if it is required, `required` says so). A removed
    // one breaks a response (a client may read it, optional or not) and a request whose schema
    // refuses unknown fields.
    if (diff.action === "add") return false;
    if (flow === "response") return true;
    const sealed = (doc: unknown) => child(nodeAt(doc, path.slice(0, -2)), "additionalProperties");
    return (sealed(is) ?? sealed(was)) === false;
  }
  return undefined;
}

/** Whether a change api-smart-diff found, at a path under `paths`, breaks a client. */
export function breaks(diff: Diff, was: unknown, is: unknown): boolean {
  const [, , , area, , ...rest] = diff.path.map(String);
  if (diff.path.length <= 3) return diff.action === "remove"; // a path or an operation
  if (area === "parameters") {
    const field = rest[0];
    if (field === undefined) {
      // A whole parameter: removed (a rename or a move is a removal), or added when required.
      return diff.action === "remove" || (diff.after as { required?: unknown } | undefined)?.required === true;
    }
    if (field === "required") return diff.after === true;
    // Only a path parameter can be matched under another name: the URL stays the same.
    if (field === "name") return child(nodeAt(was, diff.path.slice(0, 5)), "in") !== "path";
    if (field === "schema") return schemaChange(diff, "request", was, is) ?? diff.type === "breaking";
    if (["description", "example", "examples", "deprecated"].includes(field)) return false;
    return true; // style, explode, allowReserved, content: how the value is written on the wire
  }
  const at = diff.path.map(String);
  const schema = at.indexOf("schema");
  const flow: Flow | undefined = area === "requestBody" ? "request" : area === "responses" ? "response" : undefined;
  if (flow && schema > 0 && at.length > schema + 1) {
    return schemaChange(diff, flow, was, is) ?? diff.type === "breaking";
  }
  if (area === "requestBody" && diff.path.length === 4) {
    return diff.action === "remove" || (diff.after as { required?: unknown } | undefined)?.required === true;
  }
  if (area === "requestBody" && at[4] === "required") return diff.after === true;
  // A status, a media type or a whole schema: removing one breaks, adding one does not.
  if (flow && (schema < 0 || at.length === schema + 1)) return diff.action === "remove";
  return diff.type === "breaking";
}
