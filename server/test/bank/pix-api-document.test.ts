import { fileURLToPath } from "node:url";
import type { ErrorObject, Options } from "ajv";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, test } from "vitest";
import { overlaidBankDocument } from "../../../scripts/generate/bank-documents.js";

// The Central Bank's API Pix with our overlay applied (spec/bank/pix-api/) is what the client's
// types and the fake bank's checks are made from, and its examples are what a reader copies: every
// example valid against its own schema, every CPF example a CPF, every `required` naming a
// property. `npm run lint:spec` (redocly, bank-pix-api) guards the same; this guards it in the tests.

type Node = Record<string, unknown>;
const root = fileURLToPath(new URL("../../../", import.meta.url));
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

let document: Node;
beforeAll(async () => {
  document = await overlaidBankDocument(root, "pix-api");
});

/** The node a local reference `#/a/b` points at. */
function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<unknown>(
      (node, key) => (isNode(node) ? node[key.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined),
      document,
    );
}
const deref = (v: unknown): unknown => (isNode(v) && typeof v.$ref === "string" ? deref(resolve(v.$ref)) : v);

/** Ajv for OpenAPI 3.0 schemas as scripts/generate/emit-validators.ts configures it. */
function makeAjv(): AjvDraft04.default {
  const options: Options = {
    strict: false,
    strictNumbers: true,
    validateSchema: false,
    allErrors: true,
    logger: false,
  };
  const ajv = new AjvDraft04.default(options);
  addFormats.default(ajv, { mode: "full" });
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addSchema({ id: "doc", components: document.components } as Node);
  return ajv;
}

/** `#/components/…` made a reference into the schema registered as `doc`. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (!isNode(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" ? v.replace(/^#\//, "doc#/") : rebase(v),
    ]),
  );
}

interface Example {
  where: string;
  schema: unknown;
  value: unknown;
}

/** Every example of the document with the schema it illustrates. */
function examples(): Example[] {
  const found: Example[] = [];
  const withExamples = (where: string, holder: Node, schema: unknown) => {
    if (schema === undefined) return;
    if ("example" in holder) found.push({ where: `${where}/example`, schema, value: holder.example });
    for (const [name, ex] of Object.entries(isNode(holder.examples) ? holder.examples : {})) {
      const value = (deref(ex) as Node).value;
      found.push({ where: `${where}/examples/${name}`, schema, value });
    }
  };
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`));
    if (!isNode(node)) return;
    // A media type or a parameter or header: examples of its schema.
    if (isNode(node.schema) && ("example" in node || "examples" in node)) withExamples(where, node, node.schema);
    // A schema's own example (inside `properties`, `items`, compositions and components.schemas).
    const inSchema = /\/(schemas\/[^/]+|properties\/[^/]+|items|schema|allOf\/\d+|oneOf\/\d+|anyOf\/\d+)$/.test(where);
    if (inSchema && "example" in node) {
      const { example, ...schema } = node;
      found.push({ where: `${where}/example`, schema, value: example });
    }
    for (const [key, value] of Object.entries(node))
      if (key !== "example" && key !== "examples") walk(value, `${where}/${key}`);
  };
  walk(document.paths, "#/paths");
  walk(document.components, "#/components");
  return found;
}

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).join("; ");

describe("the Central Bank's API Pix with our overlay", () => {
  test("when every example is checked against its own schema, then none fails", () => {
    const ajv = makeAjv();
    const all = examples();
    expect(all.length).toBeGreaterThan(150);
    const compiled = new Map<unknown, ReturnType<typeof ajv.compile>>();
    const failures = all.flatMap(({ where, schema, value }) => {
      const validate = compiled.get(schema) ?? ajv.compile(rebase(schema) as Node);
      compiled.set(schema, validate);
      return validate(value) ? [] : [`${where}: ${describeErrors(validate.errors)}`];
    });
    expect(failures).toEqual([]);
  });

  test("when an example is read, then it is a literal value (no $ref or allOf standing for another example)", () => {
    // The vendored document wrote list items as `allOf: [$ref: <example>]` and callback bodies as
    // `example: { $ref }`: an example is taken as written, so those were objects of one key.
    const references: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`));
      if (!isNode(node)) return;
      for (const key of ["$ref", "allOf"]) if (key in node) references.push(`${where}/${key}`);
      for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`);
    };
    for (const { where, value } of examples()) walk(value, where);
    expect(references).toEqual([]);
  });

  test("when an example carries a CPF, then it is 11 digits (the pattern the overlay corrects)", () => {
    const cpfs: { where: string; value: unknown }[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`));
      if (!isNode(node)) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "cpf" && typeof value !== "object") cpfs.push({ where: `${where}/cpf`, value });
        walk(value, `${where}/${key}`);
      }
    };
    for (const { where, value } of examples()) walk(value, where);
    expect(cpfs.length).toBeGreaterThan(5);
    expect(cpfs.filter(({ value }) => !/^\d{11}$/.test(String(value)))).toEqual([]);
    // And the schema's CPF pattern accepts a CPF (it was a regex literal with slashes).
    const cpf = deref((deref((document.components as Node).schemas) as Node).PessoaFisica) as Node;
    const pattern = ((cpf.properties as Node).cpf as Node).pattern as string;
    expect(new RegExp(pattern, "u").test("12345678909")).toBe(true);
  });

  test("when a schema lists a required property, then the schema or an allOf part of it defines it", () => {
    /** The property names a schema defines, through its $ref and allOf parts. */
    const defined = (schema: unknown, seen = new Set<unknown>()): Set<string> => {
      const s = deref(schema);
      if (!isNode(s) || seen.has(s)) return new Set();
      seen.add(s);
      const names = new Set(Object.keys(isNode(s.properties) ? s.properties : {}));
      for (const part of Array.isArray(s.allOf) ? s.allOf : []) for (const n of defined(part, seen)) names.add(n);
      return names;
    };
    const undefinedRequired: string[] = [];
    /** Schemas in which `required` may name what a composing schema defines (allOf parts). */
    const walk = (node: unknown, where: string, siblings: Set<string>): void => {
      if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`, new Set()));
      if (!isNode(node)) return;
      if (Array.isArray(node.required) && node.required.every((r) => typeof r === "string")) {
        const names = new Set([...defined(node), ...siblings]);
        for (const r of node.required as string[]) if (!names.has(r)) undefinedRequired.push(`${where}/required: ${r}`);
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === "example" || key === "examples") continue;
        // A bare `required` part of an allOf names what its sibling parts (and the parent) define.
        if (key === "allOf" && Array.isArray(value)) {
          const around = new Set([...defined(node), ...siblings]);
          value.forEach((part, i) => walk(part, `${where}/allOf/${i}`, around));
        } else walk(value, `${where}/${key}`, new Set());
      }
    };
    walk(document.components, "#/components", new Set());
    walk(document.paths, "#/paths", new Set());
    expect(undefinedRequired).toEqual([]);
  });
});
