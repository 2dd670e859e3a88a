/**
 * The breaking differences between two OpenAPI 3.0 documents, in three parts: the structure
 * (`./structure.ts`, api-smart-diff: operations, parameters, bodies, fields, types, enums), the
 * bounds (`./bounds.ts`: lengths, ranges, counts, patterns) and the response headers
 * (`./headers.ts`). Webhook payloads are compared as responses.
 */
import { boundDifferences } from "./bounds.js";
import type { BreakingDifference, OpenApiDocument } from "./difference.js";
import { headerDifferences, withoutResponseHeaders } from "./headers.js";
import { structuralDifferences } from "./structure.js";

export type { BreakingDifference, OpenApiDocument } from "./difference.js";

export const majorOf = (version: string): number => Number(version.split(".")[0]);

/**
 * Webhook payloads live under `x-webhooks`, which no diff tool reads. A receiver consumes a payload
 * as a client consumes a response, so each event becomes the 200 response of a synthetic
 * `GET /x-webhooks/<event>`: removing a field, narrowing a type or adding a value to an enum is
 * then breaking as it is for responses.
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

export function breakingDifferences(before: OpenApiDocument, after: OpenApiDocument): BreakingDifference[] {
  const [was, is] = [webhooksAsResponses(before), webhooksAsResponses(after)];
  return [
    ...structuralDifferences(withoutResponseHeaders(was), withoutResponseHeaders(is)),
    ...boundDifferences(was, is),
    ...headerDifferences(before, after),
  ];
}
