import fc from "fast-check";

/** A JSON Schema (OpenAPI 3.0 flavour) node. */
export type Schema = Record<string, any>;

/** Resolves `#/components/...` references against one document. */
export type Resolve = (ref: string) => Schema;

/**
 * One schema with its `$ref` and `allOf` folded in: `{ allOf: [{ $ref: Cents }], minimum: 500 }`
 * becomes `{ type: "integer", format: "int64", minimum: 500 }`.
 */
function flatten(schema: Schema, resolve: Resolve): Schema {
  if (schema.$ref) return flatten({ ...resolve(schema.$ref), ...withoutKeys(schema, ["$ref"]) }, resolve);
  if (!Array.isArray(schema.allOf)) return schema;
  let merged: Schema = {};
  for (const part of schema.allOf as Schema[]) {
    const flat = flatten(part, resolve);
    merged = {
      ...merged,
      ...flat,
      properties: { ...merged.properties, ...flat.properties },
      required: [...(merged.required ?? []), ...(flat.required ?? [])],
    };
  }
  const own = withoutKeys(schema, ["allOf"]);
  return {
    ...merged,
    ...own,
    properties: { ...merged.properties, ...own.properties },
    required: [...merged.required, ...(own.required ?? [])],
  };
}

const withoutKeys = (schema: Schema, keys: string[]) =>
  Object.fromEntries(Object.entries(schema).filter(([k]) => !keys.includes(k)));

const instant = (min: string, max: string) =>
  fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true }).map((d) => d.toISOString());

/** Strings that stay inside a length window (fast-check's `stringMatching` ignores lengths). */
const withinLength = (arb: fc.Arbitrary<string>, schema: Schema) =>
  arb.filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY));

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === "date-time") return instant("2020-01-01T00:00:00Z", "2035-12-31T23:59:59Z");
  if (schema.format === "email") return withinLength(fc.emailAddress(), schema);
  if (schema.format === "uri") return withinLength(fc.webUrl({ validSchemes: ["https"] }), schema);
  if (typeof schema.pattern === "string") {
    return withinLength(fc.stringMatching(new RegExp(schema.pattern)), schema);
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 200) });
}

function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const integer = schema.type === "integer";
  let min = schema.minimum ?? (integer ? Number.MIN_SAFE_INTEGER : -1e9);
  let max = schema.maximum ?? (integer ? Number.MAX_SAFE_INTEGER : 1e9);
  if (schema.exclusiveMinimum === true) min += integer ? 1 : Number.EPSILON;
  if (schema.exclusiveMaximum === true) max -= integer ? 1 : Number.EPSILON;
  if (integer) {
    // Mostly small, realistic amounts; sometimes anywhere in range, and the bounds themselves.
    const small = fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 100_000), Math.max(min, 0)) });
    return fc.oneof(
      { weight: 6, arbitrary: small },
      { weight: 2, arbitrary: fc.integer({ min, max }) },
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
    );
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** A value valid against `schema` (as far as the schema says: business rules are not in it). */
export function arbitraryFor(schema: Schema, resolve: Resolve, depth = 0): fc.Arbitrary<unknown> {
  const s = flatten(schema, resolve);
  const base = baseArbitrary(s, resolve, depth);
  return s.nullable ? fc.option(base, { nil: null, freq: 4 }) : base;
}

function baseArbitrary(s: Schema, resolve: Resolve, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((a) => arbitraryFor(a, resolve, depth + 1)));
  switch (s.type) {
    case "string":
      return stringArbitrary(s);
    case "integer":
    case "number":
      return numberArbitrary(s);
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(arbitraryFor(s.items ?? {}, resolve, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, 3),
      });
    case "object":
    case undefined: {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0) {
        // A free-form object (metadata) or an empty schema: any small JSON.
        if (s.type === "object" || s.additionalProperties !== undefined) {
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), {
            maxKeys: 4,
          });
        }
        return fc.jsonValue({ maxDepth: 2 });
      }
      if (depth > 6) return fc.constant({});
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(properties)) record[name] = arbitraryFor(prop, resolve, depth + 1);
      return fc.record(record, { requiredKeys: (s.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
