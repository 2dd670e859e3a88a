import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// An array of an enumerated type must take every value of the enumeration at once: `permissions`
// once allowed 9 items while there were 10 permissions, and the operator API answered 400 to a
// key with all of them (`keys create --permissions <all>`). This walks every published document
// and fails on any array whose `maxItems` is below the number of values its items may take.

type Node = Record<string, unknown>;

const generated = resolve(fileURLToPath(import.meta.url), "../../../../generated");
const documents = readdirSync(generated)
  .filter((name) => name.endsWith("openapi.yaml"))
  .map((name) => ({ name, doc: readOpenApiDocument(join(generated, name)) as Node }));

/** The schema a local `$ref` names, failing clearly when it names nothing. */
function target(doc: Node, ref: string): Node {
  const found = ref
    .replace(/^#\//, "")
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, part) => (node as Node | undefined)?.[part], doc);
  if (!found || typeof found !== "object") throw new Error(`unresolved ${ref}`);
  return found as Node;
}

/**
 * The values a schema may take when it is an enumeration (directly, through `$ref`, or through
 * `allOf`/`anyOf`/`oneOf` of enumerations), or null when it is not one.
 */
function enumValues(doc: Node, schema: Node, seen = new Set<Node>()): Set<unknown> | null {
  if (seen.has(schema)) return null;
  seen.add(schema);
  if (typeof schema.$ref === "string") return enumValues(doc, target(doc, schema.$ref), seen);
  if (Array.isArray(schema.enum)) return new Set(schema.enum.filter((v) => v !== null));
  const members = (schema.allOf ?? schema.anyOf ?? schema.oneOf) as Node[] | undefined;
  if (!Array.isArray(members) || members.length === 0) return null;
  const sets = members.map((m) => enumValues(doc, m, seen));
  if (sets.some((s) => s === null)) return null;
  const values = sets as Set<unknown>[];
  // allOf narrows to what every member admits; anyOf/oneOf widen to what any member admits.
  if (schema.allOf) return new Set([...(values[0] ?? [])].filter((v) => values.every((s) => s.has(v))));
  return new Set(values.flatMap((s) => [...s]));
}

/** Every array schema of a document with a `maxItems` and enumerated items, with where it is. */
function* enumArrays(
  doc: Node,
  value: unknown,
  where: string,
): Generator<{ where: string; max: number; values: number }> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* enumArrays(doc, item, `${where}/${i}`);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const node = value as Node;
  if (node.items && typeof node.items === "object" && typeof node.maxItems === "number") {
    const values = enumValues(doc, node.items as Node);
    if (values) yield { where, max: node.maxItems, values: values.size };
  }
  for (const [key, child] of Object.entries(node)) {
    if (key !== "example" && key !== "examples") yield* enumArrays(doc, child, `${where}/${key}`);
  }
}

describe.each(documents)("arrays of enumerations in $name", ({ doc }) => {
  test("when any array of an enumerated type is read, then it allows at least as many items as the enumeration has values", () => {
    const arrays = [...enumArrays(doc, doc, "#")];

    const tooShort = arrays.filter((a) => a.max < a.values).map((a) => `${a.where}: maxItems ${a.max} < ${a.values}`);

    expect(tooShort).toEqual([]);
  });
});

test("when the documents are walked, then the arrays the defect was in are among those checked", () => {
  const admin = documents.find((d) => d.name === "admin-openapi.yaml");
  const checked = admin ? [...enumArrays(admin.doc, admin.doc, "#")].map((a) => a.where) : [];

  expect(documents.map((d) => d.name).sort()).toEqual(["admin-openapi.yaml", "dashboard-openapi.yaml", "openapi.yaml"]);
  expect(checked).toEqual(
    expect.arrayContaining([
      "#/components/schemas/CreateApiKeyRequest/properties/permissions",
      "#/components/schemas/UpdateApiKeyRequest/properties/permissions",
      "#/components/schemas/ApiKey/properties/permissions",
    ]),
  );
});
