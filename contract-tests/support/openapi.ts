import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { type ApiDocument, apiDocument, type DocumentName, type ResponseSpec } from "./document.js";

// Checks answers against one of the service's documents: the status is declared for the
// operation, the content type is one the status declares, a JSON body is valid against its schema
// (a text one, such as `text/csv`, is a string), and every required header is present.

const rewriteRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace(/^#\//, "openapi#/") : rewriteRefs(v),
      ]),
    );
  }
  return value;
};

/** The media type of a `content-type` header, lower case, without its parameters. */
const mediaTypeOf = (headers: Headers): string | null =>
  headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() || null;

const isJson = (mediaType: string) => mediaType === "application/json" || mediaType.endsWith("+json");

/**
 * A response's body as the checker takes it: parsed when its content type is JSON (text that is
 * not JSON stays text, and the check says so), the text itself otherwise, `undefined` when empty.
 */
export function parseBody(headers: Headers, text: string): unknown {
  if (text === "") return undefined;
  const mediaType = mediaTypeOf(headers);
  if (mediaType !== null && !isJson(mediaType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface ResponseChecker {
  document: ApiDocument;
  /** Every operationId of the document. */
  operations: string[];
  /** The problems of one answer (none: it keeps the document). */
  check(operationId: string, status: number, headers: Headers, body: unknown): string[];
}

function makeChecker(document: ApiDocument): ResponseChecker {
  const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
  addFormats.default(ajv);
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addSchema({ $id: "openapi", components: rewriteRefs(document.raw.components) });
  const operations = new Map<string, Record<string, ResponseSpec>>(
    document.operations.map((op) => [op.operationId, op.responses]),
  );
  // By operation, status and media type, and by the schema's text: most answers share a few schemas
  // (every error of a document is the one error body), so 1,512 answers of the three documents need
  // 86 validators, each compiled once in a process (compiling one is milliseconds of Ajv's code
  // generation, and every test worker checks answers).
  const cache = new Map<string, ValidateFunction>();
  const bySchema = new Map<string, ValidateFunction>();
  const validatorOf = (schema: unknown): ValidateFunction => {
    const text = JSON.stringify(schema);
    let validate = bySchema.get(text);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema) as object);
      bySchema.set(text, validate);
    }
    return validate;
  };
  return {
    document,
    operations: [...operations.keys()],
    check(operationId, status, headers, body) {
      const responses = operations.get(operationId);
      if (!responses) return [`unknown operation ${operationId} in ${document.file}`];
      const spec = responses[String(status)];
      if (!spec)
        return [`status ${status} is not declared for ${operationId} (declared: ${Object.keys(responses).join(", ")})`];
      const problems: string[] = [];
      for (const [name, h] of Object.entries(spec.headers ?? {})) {
        if (h.required && !headers.has(name)) problems.push(`missing required header ${name}`);
      }
      const declared = Object.keys(spec.content ?? {});
      if (declared.length === 0) {
        if (body !== undefined && body !== "") problems.push(`a body where status ${status} declares none`);
        return problems;
      }
      const mediaType = mediaTypeOf(headers);
      if (mediaType === null || !declared.includes(mediaType)) {
        problems.push(`content-type ${mediaType ?? "(none)"} is not declared (declared: ${declared.join(", ")})`);
        return problems;
      }
      const schema = spec.content?.[mediaType]?.schema;
      if (!isJson(mediaType)) {
        if (typeof body !== "string" && body !== undefined) problems.push(`a ${mediaType} body that is not text`);
        return problems;
      }
      if (schema) {
        const key = `${operationId}:${status}:${mediaType}`;
        let validate = cache.get(key);
        if (!validate) {
          validate = validatorOf(schema);
          cache.set(key, validate);
        }
        if (!validate(body)) {
          problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`));
        }
      }
      return problems;
    },
  };
}

const checkers = new Map<DocumentName, ResponseChecker>();

/** The checker of one document, built at its first use. */
export function responseChecker(name: DocumentName): ResponseChecker {
  let checker = checkers.get(name);
  if (!checker) {
    checker = makeChecker(apiDocument(name));
    checkers.set(name, checker);
  }
  return checker;
}

const publicChecker = responseChecker("public");

/** Every operationId of the public document. */
export const documentedOperations = publicChecker.operations;

/** Checks one response against the public document (see `ResponseChecker.check`). */
export const checkResponse = (operationId: string, status: number, headers: Headers, body: unknown): string[] =>
  publicChecker.check(operationId, status, headers, body);
