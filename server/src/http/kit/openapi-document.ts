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
 * The OpenAPI document the request validator checks against: the published one, read as is, with
 * `allowReserved: true` on every query parameter. RFC 3986 lets a query carry `:`, `/`, `?` and
 * `@` unencoded (`?createdFrom=2026-11-23T08:49:50Z`); the validator would otherwise refuse them.
 * Clients are still told to encode (the published document keeps the default).
 */
export function validatorDocument(path: string): Node {
  const document = readOpenApiDocument(path);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== "object") return;
    const node = value as Node;
    if (node.in === "query" && typeof node.name === "string") node.allowReserved = true;
    Object.values(node).forEach(visit);
  };
  visit(document.paths);
  visit((document.components as Node | undefined)?.parameters);
  return document;
}

/**
 * Formats the validator checks beyond ajv-formats: `int64` only as a safe integer. ajv-formats
 * takes any integral number as int64 (`1e300` passes), which no store keeps as cents exactly.
 */
export const validatorFormats = {
  int64: { type: "number" as const, validate: (n: number) => Number.isSafeInteger(n) },
};
