import { describe, expect, test } from "vitest";
import { readOpenApiDocument } from "../../server/src/http/kit/openapi-document.js";

// A request example is what a reader copies and sends: a date in it that has passed makes it fail
// (issue 33: the public document's `POST /api/v1/recurrences` example, `firstDate: "2026-11-04"`,
// answered 400 from that day on). The spec writes such dates far ahead (2030); this test fails the
// day one of them is in the past, before a reader finds it.

const documents = ["openapi.yaml", "admin-openapi.yaml", "dashboard-openapi.yaml"] as const;
const methods = ["get", "put", "post", "delete", "patch"] as const;
const date = /^\d{4}-\d{2}-\d{2}(T[0-9:.]+Z)?$/;

type Json = Record<string, any>;

/** Every date in a value, with where it is. */
function datesIn(value: unknown, where: string): { where: string; date: string }[] {
  if (typeof value === "string") return date.test(value) ? [{ where, date: value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => datesIn(item, `${where}[${i}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => datesIn(item, `${where}.${key}`));
  return [];
}

/** The dates of every request example of a document: bodies, the examples' parameters (`x-example-requests`), and parameters that carry examples. */
function requestExampleDates(name: string) {
  const doc = readOpenApiDocument(`generated/${name}`) as Json;
  const found: { where: string; date: string }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const method of methods) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation) continue;
      const at = `${method.toUpperCase()} ${path}`;
      for (const [type, content] of Object.entries((operation.requestBody?.content ?? {}) as Json))
        for (const [title, example] of Object.entries((content.examples ?? {}) as Json))
          found.push(...datesIn(example.value, `${at} ${type} ${title}`));
      for (const [title, request] of Object.entries((operation["x-example-requests"] ?? {}) as Json))
        found.push(...datesIn(request.parameters, `${at} parameters ${title}`));
      for (const parameter of (operation.parameters ?? []) as Json[])
        for (const [title, example] of Object.entries((parameter.examples ?? {}) as Json))
          found.push(...datesIn(example.value, `${at} ${parameter.in}:${parameter.name} ${title}`));
    }
  return found;
}

/**
 * Dates in the past on purpose, valid as time passes: the operator's reconciliation window reads
 * what the bank already received (it must end no later than now; a window in the future answers
 * 400), and the statement (extrato) of a period that has begun is what a merchant asks for.
 */
const pastOnPurpose =
  /^(POST \/admin\/v1\/bank\/reconciliations application\/json \w+\.(from|to)|GET \/dashboard\/v1\/modes\/\{mode\}\/statement(\.csv)? parameters \w+\.query\.created(From|To))$/;

describe.each(documents)("the request examples of %s", (name) => {
  test("when their dates are read, then none is in the past (an example that has expired answers 400)", () => {
    const today = new Date().toISOString().slice(0, 10);
    const past = requestExampleDates(name).filter((d) => d.date.slice(0, 10) < today && !pastOnPurpose.test(d.where));
    expect(past).toEqual([]);
  });
});

test("when the public document's request examples are read, then the walk finds their dates (the recurrence's firstDate)", () => {
  expect(requestExampleDates("openapi.yaml").map((d) => d.where)).toContainEqual(
    "POST /api/v1/recurrences application/json created.firstDate",
  );
});
