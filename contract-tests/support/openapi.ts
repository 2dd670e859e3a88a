import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { document } from "./document.js";

interface ResponseSpec {
  headers?: Record<string, { required?: boolean }>;
  content?: { "application/json"?: { schema: unknown } };
}

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

const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
addFormats.default(ajv);
ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
ajv.addSchema({ $id: "openapi", components: rewriteRefs(document.components) });

const operations = new Map<string, Record<string, ResponseSpec>>();
for (const item of Object.values(document.paths)) {
  for (const op of Object.values(item)) operations.set(op.operationId, op.responses as Record<string, ResponseSpec>);
}

/** Every operationId of the document. */
export const documentedOperations = [...operations.keys()];

const cache = new Map<string, ValidateFunction>();

/**
 * Checks one response against the document: the status is declared for the operation, the body
 * is valid against that status's schema, and every required header is present.
 */
export function checkResponse(operationId: string, status: number, headers: Headers, body: unknown): string[] {
  const responses = operations.get(operationId);
  if (!responses) return [`unknown operation ${operationId}`];
  const spec = responses[String(status)];
  if (!spec)
    return [`status ${status} is not declared for ${operationId} (declared: ${Object.keys(responses).join(", ")})`];
  const problems: string[] = [];
  for (const [name, h] of Object.entries(spec.headers ?? {})) {
    if (h.required && !headers.has(name)) problems.push(`missing required header ${name}`);
  }
  const schema = spec.content?.["application/json"]?.schema;
  if (schema) {
    const key = `${operationId}:${status}`;
    let validate = cache.get(key);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema) as object);
      cache.set(key, validate);
    }
    if (!validate(body)) {
      problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`));
    }
  }
  return problems;
}
