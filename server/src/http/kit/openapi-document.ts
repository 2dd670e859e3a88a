import { existsSync, readFileSync } from "node:fs";
import { parse } from "yaml";

type Node = Record<string, unknown>;

/**
 * An OpenAPI document (`*.yaml`) as an object. The build writes a JSON copy beside each document
 * (`npm run build`): read when present, since JSON.parse takes milliseconds where the YAML parser
 * took most of a second of the start-up. Running from the sources, the YAML is parsed.
 */
export function readOpenApiDocument(path: string): Node {
  const json = path.replace(/\.yaml$/, ".json");
  if (json !== path && existsSync(json)) return JSON.parse(readFileSync(json, "utf8")) as Node;
  return parse(readFileSync(path, "utf8")) as Node;
}

/**
 * A document's `#/components/schemas/X` references made `#/$defs/X`, for an Ajv schema that carries
 * the document's schemas as its `$defs` (the checkout's payer, the bank listener's callback body).
 */
export function localSchemaRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(localSchemaRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace(/^#\/components\/schemas\//, "#/$defs/") : localSchemaRefs(v),
      ]),
    );
  }
  return value;
}
