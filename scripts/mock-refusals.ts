/**
 * What Prism cannot do from a document alone: answer a missing required header with the status the
 * server gives. Prism answers a request that breaks the document with the operation's 422 or 400
 * (and a missing security scheme with 401); the dashboard's server answers a change without
 * `x-csrf-token` with `403 CSRF_REFUSED`. The document says so on the parameter,
 * `x-refusal: { status: 403, code: CSRF_REFUSED }`, and the mock's front (scripts/prism.ts) reads
 * it here: a request without such a header gets the operation's example of that status and code,
 * before Prism sees it (issue 33).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";

/** An answer the front gives instead of Prism. */
export interface Refusal {
  status: number;
  body: unknown;
}

interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean;
  "x-refusal"?: { status: number; code: string };
}

interface Operation {
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, { examples?: Record<string, { value?: unknown }> }> }>;
}

interface Rule {
  method: string;
  pattern: RegExp;
  header: string;
  refusal: Refusal;
}

/** The rules of one document: for each operation, each required header that carries an `x-refusal`. */
export function refusalRules(documentPath: string): Rule[] {
  const doc = parse(readFileSync(documentPath, "utf8")) as {
    paths: Record<string, Record<string, Operation>>;
    components?: { parameters?: Record<string, Parameter> };
  };
  const resolve = (p: Parameter): Parameter =>
    p.$ref ? (doc.components?.parameters?.[p.$ref.replace("#/components/parameters/", "")] ?? p) : p;
  // An operation without its own example of the code takes the document's first one.
  const anywhere = (status: number, code: string) =>
    Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => Object.values(op.responses?.[String(status)]?.content?.["application/json"]?.examples ?? {}))
      .find((e) => (e.value as { code?: unknown } | undefined)?.code === code)?.value;
  const rules: Rule[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    for (const [method, operation] of Object.entries(item)) {
      for (const parameter of (operation.parameters ?? []).map(resolve)) {
        const said = parameter["x-refusal"];
        if (!said || parameter.in !== "header" || !parameter.required || !parameter.name) continue;
        const examples = Object.values(
          operation.responses?.[String(said.status)]?.content?.["application/json"]?.examples ?? {},
        );
        const example = examples.find((e) => (e.value as { code?: unknown } | undefined)?.code === said.code);
        rules.push({
          method: method.toUpperCase(),
          pattern,
          header: parameter.name.toLowerCase(),
          refusal: {
            status: said.status,
            body: example?.value ??
              anywhere(said.status, said.code) ?? { ok: false, code: said.code, message: said.code },
          },
        });
      }
    }
  }
  return rules;
}

/** The refusal a request earns, or null when Prism should answer it. */
export function refusalFor(
  rules: Rule[],
  method: string,
  pathname: string,
  headers: Record<string, string | string[] | undefined>,
): Refusal | null {
  const rule = rules.find((r) => r.method === method && r.pattern.test(pathname) && headers[r.header] === undefined);
  if (!rule) return null;
  const body = rule.refusal.body;
  // The example's `path` becomes the request's, as the server writes it.
  return body && typeof body === "object" && "path" in body
    ? { status: rule.refusal.status, body: { ...body, path: pathname } }
    : rule.refusal;
}
