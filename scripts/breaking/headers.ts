/**
 * Response headers, compared apart: a header a client may read that is removed, or that stops
 * being always sent, is breaking; a new one is not. The structural comparison sees the documents
 * without them, which keeps it fast (the headers written out on every response multiply its work).
 */
import { type BreakingDifference, methods, type OpenApiDocument, place } from "./difference.js";

type Operations = Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>>;

/**
 * Every response header of a document, by `place` of its location
 * (`paths.<path>.<method>.responses.<status>.headers.<name>`).
 */
function responseHeaders(document: OpenApiDocument): Map<string, { location: string; required: boolean }> {
  const found = new Map<string, { location: string; required: boolean }>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Operations)) {
    for (const method of methods) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const required = (header as { required?: boolean }).required === true;
          const location = `paths.${path}.${method}.responses.${status}.headers.${name.toLowerCase()}`;
          found.set(place(location), { location, required });
        }
      }
    }
  }
  return found;
}

export function headerDifferences(before: OpenApiDocument, after: OpenApiDocument): BreakingDifference[] {
  const now = responseHeaders(after);
  const differences: BreakingDifference[] = [];
  for (const [key, was] of responseHeaders(before)) {
    const [is, location] = [now.get(key), was.location];
    if (!is) differences.push({ code: "response.header.remove", location, from: "present", to: "absent" });
    else if (was.required && !is.required)
      differences.push({ code: "response.header.optional", location: `${location}.required`, from: true, to: false });
  }
  return differences;
}

export function withoutResponseHeaders(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  for (const item of Object.values((copy.paths ?? {}) as Operations)) {
    for (const method of methods) {
      for (const response of Object.values(item[method]?.responses ?? {})) delete response.headers;
    }
  }
  return copy;
}
