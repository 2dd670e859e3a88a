import fc from "fast-check";

// The fuzzer's own damage, added to the requests of the shared generator
// (contract-tests/support/requests.ts): odd values and strings, structural mutations of a body,
// malformed or mislabelled bodies, odd query encodings, garbage ids and respelled paths.

/** `arbitrary` one time in `outOf`, null otherwise. */
export const sometimes = <T>(arbitrary: fc.Arbitrary<T>, outOf: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: outOf - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

export const weirdStrings = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "a\udfffb",
  "👕",
  "x".repeat(300),
  "0000-01-01T00:00:00Z",
  "2016-12-31T23:59:60Z",
  "9999-12-31T23:59:59.999999999Z",
  "2026-02-30T00:00:00Z",
  "1e309",
  "-1",
  "__proto__",
  "constructor",
  "../..",
  "%00",
  "<script>",
  "' OR 1=1 --",
];
export const weirdValues: unknown[] = [
  ...weirdStrings,
  null,
  true,
  0,
  -1,
  0.5,
  499,
  500,
  600,
  999_999_999_999,
  1_000_000_000_000,
  2 ** 31,
  2 ** 53,
  1e308,
  -1e308,
  [],
  {},
  [1, "a", null],
  { a: { b: { c: {} } } },
];

const deep = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

type Mutation =
  | { kind: "none" }
  | { kind: "drop"; pick: number }
  | { kind: "replace"; pick: number; value: unknown }
  | { kind: "extra"; name: string; value: unknown }
  | { kind: "deep"; pick: number; levels: number }
  | { kind: "whole"; value: unknown }
  | { kind: "taint"; pick: number; text: string };

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      pick: fc.nat(),
      value: fc.oneof(fc.constantFrom(...weirdValues), fc.jsonValue({ maxDepth: 2 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("extra" as const),
      name: fc.oneof(fc.constantFrom("__proto__", "extra", "ok", "id"), fc.string({ maxLength: 8 })),
      value: fc.jsonValue({ maxDepth: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("deep" as const), pick: fc.nat(), levels: fc.constantFrom(30, 33, 200) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("whole" as const), value: fc.jsonValue({ maxDepth: 3 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("taint" as const),
      pick: fc.nat(),
      text: fc.constantFrom("\u0000", "\ud800", "\udfff", "👕", "\u202e", "\ufeff"),
    }),
  },
);

/** Every container-held place of a JSON value, as [parent, key] pairs. */
export function places(value: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const out: [Record<string, unknown> | unknown[], string | number][] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        out.push([v, i]);
        stack.push(item);
      });
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        out.push([v as Record<string, unknown>, k]);
        stack.push(item);
      }
    }
  }
  return out;
}

export function mutate(value: unknown, mutation: Mutation): unknown {
  const copy = value === undefined ? undefined : structuredClone(value);
  const all = places(copy);
  const at = (pick: number) => all[pick % Math.max(all.length, 1)];
  switch (mutation.kind) {
    case "none":
      return copy;
    case "whole":
      return mutation.value;
    case "taint": {
      // One character more in one string (a key or a value), the rest left valid.
      const strings = all.filter(
        ([parent, key]) => typeof (parent as Record<string | number, unknown>)[key] === "string",
      );
      const place = strings[mutation.pick % Math.max(strings.length, 1)];
      if (!place) return copy;
      const [parent, key] = place;
      const holder = parent as Record<string | number, unknown>;
      holder[key] = `${String(holder[key])}${mutation.text}`;
      if (mutation.pick % 4 === 0 && !Array.isArray(parent)) {
        holder[`${String(key)}${mutation.text}`] = holder[key];
        delete holder[key];
      }
      return copy;
    }
    case "extra":
      if (copy !== null && typeof copy === "object" && !Array.isArray(copy)) {
        Object.defineProperty(copy, mutation.name, { value: mutation.value, enumerable: true, writable: true });
      }
      return copy;
    case "drop": {
      const place = at(mutation.pick);
      if (place) {
        const [parent, key] = place;
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key as string];
      }
      return copy;
    }
    case "replace":
    case "deep": {
      const place = at(mutation.pick);
      const replacement = mutation.kind === "deep" ? deep(mutation.levels) : mutation.value;
      if (!place) return replacement;
      const [parent, key] = place;
      (parent as Record<string | number, unknown>)[key] = replacement;
      return copy;
    }
  }
}

export type RawBody =
  | { kind: "json" }
  | { kind: "malformed"; text: string }
  | { kind: "text-plain" }
  | { kind: "huge" }
  | { kind: "empty" };

export const rawBodyArbitrary: fc.Arbitrary<RawBody> = fc.oneof(
  { weight: 20, arbitrary: fc.constant({ kind: "json" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("malformed" as const),
      text: fc.constantFrom("{", "[", '{"a":}', "nul", "'x'", '{"a":1}}', "\u0000", '"\\ud800"', "1e999999"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "text-plain" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "huge" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty" as const }) },
);

const loneSurrogate = /([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/;

/** `encodeURIComponent`, except that a lone surrogate goes as its (invalid) UTF-8-style bytes. */
const encode = (text: string) =>
  text
    .split(loneSurrogate)
    .map((part, i) =>
      i % 2 === 1
        ? Buffer.from([
            0xe0 | (part.charCodeAt(0) >> 12),
            0x80 | ((part.charCodeAt(0) >> 6) & 0x3f),
            0x80 | (part.charCodeAt(0) & 0x3f),
          ])
            .toString("hex")
            .replace(/../g, "%$&")
        : encodeURIComponent(part),
    )
    .join("");

/** A query value as it goes on the wire: encoded, or raw with RFC 3986 reserved characters. */
export const queryText = (value: unknown, raw: boolean) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return raw
    ? text
        .replace(/[&#%\s]/g, (c) => encode(c))
        .replaceAll("\u0000", "%00")
        .toWellFormed()
    : encode(text);
};

export const garbageIds = [
  "txn_doesnotexist",
  "%00",
  "txn_%00",
  "%ED%A0%80",
  "a%2Fb",
  "..",
  "x".repeat(70),
  "%E0%A4%A",
  "%20",
];

/** Another spelling of a route (it must be the same route's 404, never served around auth or limits). */
export function respell(path: string, spelling: "upper" | "capitalised" | "trailing-slash" | null): string {
  const words = (f: (w: string) => string) => path.replace(/(?<=\/)[a-z-]+(?=\/|$)/g, f);
  if (spelling === "upper") return words((w) => w.toUpperCase());
  if (spelling === "capitalised") return words((w) => w.charAt(0).toUpperCase() + w.slice(1));
  if (spelling === "trailing-slash") return `${path}/`;
  return path;
}
