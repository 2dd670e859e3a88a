import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readOpenApiDocument } from "../../src/http/kit/openapi-document.js";
import { efiPayoutScopes } from "../../src/bank/payouts-efi.js";
import { interPayoutScopes } from "../../src/bank/payouts-inter.js";

// Our documents of the banks' payout APIs (spec/bank/efi-payouts, spec/bank/inter-payouts): each
// field says where it comes from, and the adapters ask the scopes the documents state.

const root = join(import.meta.dirname, "../../..");

type Schema = {
  $ref?: string;
  "x-source"?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
};
type Document = {
  paths: Record<
    string,
    Record<string, { "x-source"?: string; security?: { OAuth2?: string[] }[]; parameters?: Schema[] }>
  >;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Schema> };
};

const read = (name: string) => readOpenApiDocument(join(root, `generated/bank/${name}.yaml`)) as Document;

/** Where a field has no source: every property and item, at any depth, that is not a reference. */
function unsourced(schema: Schema, at: string): string[] {
  const own = schema.$ref === undefined && schema["x-source"] === undefined ? [at] : [];
  const properties = Object.entries(schema.properties ?? {}).flatMap(([name, inner]) =>
    unsourced(inner, `${at}.${name}`),
  );
  const items = schema.items === undefined ? [] : unsourced(schema.items, `${at}[]`);
  return [...own, ...properties, ...items];
}

describe.each([
  ["efi-payouts", efiPayoutScopes],
  ["inter-payouts", interPayoutScopes],
] as const)("the document %s", (name, scopes) => {
  test("when each call's scope is compared with the document's security, then they are the same", () => {
    const doc = read(name);
    for (const [operation, scope] of Object.entries(scopes)) {
      const [method = "", path = ""] = operation.split(" ");
      expect(doc.paths[path]?.[method.toLowerCase()]?.security, operation).toEqual([{ OAuth2: [scope] }]);
    }
  });

  test("when its operations, parameters and schemas are read, then every one names its source", () => {
    const doc = read(name);
    const missing = [
      ...Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([method, operation]) => [
          ...(operation["x-source"] === undefined ? [`${method} ${path}`] : []),
          ...(operation.parameters ?? []).flatMap((p, i) => unsourced(p, `${method} ${path} parameter ${i}`)),
        ]),
      ),
      ...Object.entries(doc.components.parameters ?? {}).flatMap(([key, p]) => unsourced(p, `parameter ${key}`)),
      ...Object.entries(doc.components.schemas).flatMap(([key, schema]) => unsourced(schema, key)),
    ];
    expect(missing).toEqual([]);
  });
});
