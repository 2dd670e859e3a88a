import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { readOpenApiDocument } from "../../server/src/http/kit/openapi-document.js";

// Every response header the three documents declare carries an example that keeps its own schema:
// Prism's mock sends that example, and without one it sent the literal `string`, which its own
// check then reported as a violation of the header's pattern (issue 33: `RateLimit`,
// `RateLimit-Policy`, `Content-Disposition`).

const documents = ["openapi.yaml", "admin-openapi.yaml", "dashboard-openapi.yaml"] as const;
const methods = ["get", "put", "post", "delete", "patch"] as const;

type Json = Record<string, any>;

/** The object a local `$ref` names (followed until it names no other). */
function resolve(doc: Json, value: Json): Json {
  let current = value;
  while (typeof current?.$ref === "string") {
    current = (current.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: Json, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return current;
}

/** The example a header declares: on the header, in its `examples`, or on its schema. */
function exampleOf(doc: Json, header: Json): { found: boolean; value?: unknown } {
  if ("example" in header) return { found: true, value: header.example };
  const first = Object.values(header.examples ?? {})[0] as Json | undefined;
  if (first) return { found: true, value: resolve(doc, first).value };
  const schema = resolve(doc, header.schema ?? {});
  if ("example" in schema) return { found: true, value: schema.example };
  return { found: false };
}

/** Every response header of a document: where it is, the header object, and the document. */
function responseHeaders(name: string) {
  const doc = readOpenApiDocument(`generated/${name}`) as Json;
  const rows: { place: string; header: Json; doc: Json }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const method of methods) {
      const operation = (item as Json)[method] as Json | undefined;
      for (const [status, response] of Object.entries(operation?.responses ?? {}))
        for (const [headerName, header] of Object.entries(resolve(doc, response as Json).headers ?? {}))
          rows.push({
            place: `${name} ${method.toUpperCase()} ${path} ${status} ${headerName}`,
            header: resolve(doc, header as Json),
            doc,
          });
    }
  return rows;
}

describe.each(documents)("the response headers of %s", (name) => {
  const rows = responseHeaders(name);
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });

  test("when the document is read, then it declares response headers (the walk sees them)", () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  test("when each header is read, then it has an example the mock can send", () => {
    const without = rows.filter((row) => !exampleOf(row.doc, row.header).found).map((row) => row.place);
    expect(without).toEqual([]);
  });

  test("when each header's example is checked against the header's schema, then it keeps it (pattern, bounds, type)", () => {
    const failing: string[] = [];
    const checked = new Map<string, ReturnType<Ajv["compile"]>>();
    for (const row of rows) {
      const example = exampleOf(row.doc, row.header);
      if (!example.found) continue;
      const schema = JSON.stringify(row.header.schema ?? {});
      let validate = checked.get(schema);
      if (!validate) {
        validate = ajv.compile({ ...(row.header.schema ?? {}), components: row.doc.components });
        checked.set(schema, validate);
      }
      if (!validate(example.value))
        failing.push(`${row.place}: ${JSON.stringify(example.value)} ${ajv.errorsText(validate.errors)}`);
    }
    expect(failing).toEqual([]);
  });
});
