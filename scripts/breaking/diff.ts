import openapiDiff from "openapi-diff";
import { boundDifferences, withoutBounds } from "./bounds.js";

/** One breaking difference openapi-diff found, with where it is in either document. */
export interface BreakingDifference {
  code: string;
  action: string;
  entity: string;
  locations: string[];
}

type OpenApiDocument = {
  info: { version: string };
  paths?: Record<string, unknown>;
  "x-webhooks"?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } }>;
  [key: string]: unknown;
};

export const majorOf = (version: string): number => Number(version.split(".")[0]);

/**
 * Webhook payloads live under `x-webhooks`, which no diff tool reads. A receiver consumes a payload
 * as a client consumes a response, so each event becomes the 200 response of a synthetic
 * `GET /x-webhooks/<event>`: removing a field, or narrowing a type, is then breaking as it is for
 * responses.
 */
function webhooksAsResponses(document: OpenApiDocument): OpenApiDocument {
  const paths: Record<string, unknown> = { ...document.paths };
  for (const [event, item] of Object.entries(document["x-webhooks"] ?? {})) {
    const content = item.post?.requestBody?.content ?? {};
    paths[`/x-webhooks/${event}`] = {
      get: { operationId: `webhook_payload_${event}`, responses: { "200": { description: event, content } } },
    };
  }
  const { "x-webhooks": _omitted, ...rest } = document;
  return { ...rest, paths };
}

/**
 * A union of named schemas (`anyOf`/`oneOf` whose members are all `$ref`s, as `Event` is) becomes,
 * for openapi-diff only, an object with one optional property per member. json-schema-diff
 * computes set complements of every member against every other, which for the ten event kinds
 * does not finish; the product form compares each member with its namesake, in the same
 * direction (a member that widens widens the whole). A member that is removed reads as a widening,
 * the safe mistake.
 */
function unionsAsProducts(document: OpenApiDocument): OpenApiDocument {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== "object") return node;
    const entries = Object.entries(node).map(([key, value]) => [
      key,
      key.startsWith("example") ? value : rewrite(value),
    ]);
    const copy = Object.fromEntries(entries) as Record<string, unknown>;
    for (const kind of ["anyOf", "oneOf"]) {
      const members = copy[kind];
      if (!Array.isArray(members) || members.length < 2) continue;
      const refs = members.map((m) => (m as { $ref?: unknown }).$ref);
      if (!refs.every((r): r is string => typeof r === "string")) continue;
      delete copy[kind];
      copy.type = "object";
      copy.properties = Object.fromEntries(refs.map((ref) => [ref.split("/").at(-1), { $ref: ref }]));
    }
    return copy;
  };
  return rewrite(document) as OpenApiDocument;
}

/** Names of the component schemas reachable from `roots`, following `$ref`s transitively. */
function reachableSchemas(document: OpenApiDocument, roots: unknown[]): Set<string> {
  const schemas = ((document.components as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {}) as Record<
    string,
    unknown
  >;
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
          const name = value.slice("#/components/schemas/".length);
          if (!seen.has(name)) {
            seen.add(name);
            stack.push(schemas[name]);
          }
        } else stack.push(value);
      }
    }
  }
  return seen;
}

/**
 * Our schemas are sealed (`additionalProperties: false`) so that servers refuse unknown request
 * fields. A response is read, not validated by the server: a new optional field in a response is
 * compatible, as every public API treats it. So schemas that only responses (and webhook payloads)
 * reach are compared unsealed; schemas any request reaches stay sealed.
 */
function unsealResponseOnlySchemas(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  const operations = Object.values(copy.paths ?? {}).flatMap((item) =>
    Object.values(item as Record<string, { requestBody?: unknown; parameters?: unknown; responses?: unknown }>),
  );
  const requests = reachableSchemas(
    copy,
    operations.flatMap((op) => [op.requestBody, op.parameters]),
  );
  const responses = reachableSchemas(
    copy,
    operations.map((op) => op.responses),
  );
  const schemas = (copy.components as { schemas?: Record<string, Record<string, unknown>> } | undefined)?.schemas ?? {};
  for (const name of responses) {
    const schema = schemas[name];
    if (!requests.has(name) && schema?.additionalProperties === false) delete schema.additionalProperties;
  }
  return copy;
}

type Operations = Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every response header of a document: `paths.<path>.<method>.responses.<status>.headers.<name>`. */
function responseHeaders(document: OpenApiDocument): Map<string, { required: boolean }> {
  const found = new Map<string, { required: boolean }>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Operations)) {
    for (const method of methods) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const required = (header as { required?: boolean }).required === true;
          found.set(`paths.${path}.${method}.responses.${status}.headers.${name.toLowerCase()}`, { required });
        }
      }
    }
  }
  return found;
}

/**
 * Response headers, compared apart: a header a client may read that is removed, or that stops
 * being always sent, is breaking; a new one is not. The bodies are left to openapi-diff without
 * them, which keeps it fast (the headers written out on every response multiply its work).
 */
function headerDifferences(before: OpenApiDocument, after: OpenApiDocument): BreakingDifference[] {
  const now = responseHeaders(after);
  const differences: BreakingDifference[] = [];
  for (const [location, was] of responseHeaders(before)) {
    const is = now.get(location);
    if (!is)
      differences.push({
        code: "response.header.remove",
        action: "remove",
        entity: "response.header",
        locations: [location],
      });
    else if (was.required && !is.required)
      differences.push({
        code: "response.header.optional",
        action: "remove",
        entity: "response.header",
        locations: [location],
      });
  }
  return differences;
}

function withoutResponseHeaders(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  for (const item of Object.values((copy.paths ?? {}) as Operations)) {
    for (const method of methods) {
      for (const response of Object.values(item[method]?.responses ?? {})) delete response.headers;
    }
  }
  return copy;
}

/**
 * The breaking differences between two OpenAPI 3.0 documents, webhook payloads, response headers
 * and bounds included. openapi-diff compares the structure; headers and bounds are compared apart
 * (see `headerDifferences` and `./bounds.ts`).
 */
export async function breakingDifferences(
  before: OpenApiDocument,
  after: OpenApiDocument,
): Promise<BreakingDifference[]> {
  const spec = (document: OpenApiDocument, location: string) => ({
    content: JSON.stringify(
      unionsAsProducts(withoutBounds(unsealResponseOnlySchemas(withoutResponseHeaders(webhooksAsResponses(document))))),
    ),
    location,
    format: "openapi3" as const,
  });
  const result = await openapiDiff.diffSpecs({
    sourceSpec: spec(before, "released.json"),
    destinationSpec: spec(after, "current.json"),
  });
  const bodies = result.breakingDifferencesFound
    ? result.breakingDifferences.map((d) => ({
        code: d.code,
        action: d.action,
        entity: d.entity,
        locations: [
          ...(d.destinationSpecEntityDetails ?? []).map((e) => e.location),
          ...(d.sourceSpecEntityDetails ?? []).map((e) => e.location),
        ],
      }))
    : [];
  return [
    ...bodies,
    ...boundDifferences(webhooksAsResponses(before), webhooksAsResponses(after)),
    ...headerDifferences(before, after),
  ];
}
