import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

type Node = Record<string, unknown>;

/**
 * Where a document parsed from its YAML is kept as JSON, by the digest of its text: the project's
 * node_modules/.cache (a folder tools keep caches in), so the next process that reads the same
 * document (a test worker, a server started from the sources) takes milliseconds where the YAML
 * parser took most of a second (the public document 0.7 s of CPU, the dashboard's 0.8 s).
 */
const cacheDir = fileURLToPath(new URL("../../../../node_modules/.cache/pix-openapi/", import.meta.url));

/** Where the JSON of a document of this text is kept. */
const cacheFileOf = (text: string) => `${cacheDir}${createHash("sha256").update(text).digest("hex").slice(0, 32)}.json`;

/** The document parsed from its YAML `text`, through the cache when it can be written (best effort). */
function parsedThroughCache(text: string, cached = cacheFileOf(text)): Node {
  try {
    return JSON.parse(readFileSync(cached, "utf8")) as Node;
  } catch {
    // Not cached yet (or unreadable): parsed below.
  }
  const document = parse(text) as Node;
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written aside, then renamed: a process reading it at the same time sees all of it or none.
    const aside = `${cached}.${process.pid}.tmp`;
    writeFileSync(aside, JSON.stringify(document));
    renameSync(aside, cached);
  } catch {
    // A folder that cannot be written: the next process parses the YAML again.
  }
  return document;
}

/**
 * An OpenAPI document (`*.yaml`) as an object, new at each call (a caller may change it). The build
 * writes a JSON copy beside each document (`npm run build`): read when present, since JSON.parse
 * takes milliseconds where the YAML parser took most of a second of the start-up. Running from
 * the sources, the YAML is parsed once per version of its text (`parsedThroughCache`).
 */
export function readOpenApiDocument<T = Node>(path: string): T {
  const json = path.replace(/\.yaml$/, ".json");
  if (json !== path && existsSync(json)) return JSON.parse(readFileSync(json, "utf8")) as T;
  return parsedThroughCache(readFileSync(path, "utf8")) as T;
}

/**
 * A file holding the document as JSON, for a tool that reads JSON in a fraction of its YAML's time
 * (Prism: the dashboard's document 6.1 → 4.8 s of CPU to start): the build's copy beside it, or
 * the cache's (`parsedThroughCache`); the YAML itself when neither can be had.
 */
export function openApiDocumentFileAsJson(path: string): string {
  const json = path.replace(/\.yaml$/, ".json");
  if (json === path || existsSync(json)) return json;
  const text = readFileSync(path, "utf8");
  const cached = cacheFileOf(text);
  if (!existsSync(cached)) parsedThroughCache(text, cached);
  return existsSync(cached) ? cached : path;
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
