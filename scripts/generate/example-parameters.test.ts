import { describe, expect, test } from "vitest";
import { readOpenApiDocument } from "../../server/src/http/kit/openapi-document.js";

// An @opExample's parameters (the mode, the ids, the filters) never reached the documents, so an
// example meant for production mode read as a test-mode one that would succeed (issue 33 §3).
// `npm run generate` now carries them (scripts/generate/example-parameters.ts).

type Json = Record<string, any>;
const read = (name: string) => readOpenApiDocument(`generated/${name}`) as Json;

describe("the dashboard's production-mode example of re-pointing a webhook endpoint", () => {
  const operation = read("dashboard-openapi.yaml").paths["/dashboard/v1/modes/{mode}/webhook-endpoints/{id}"].patch;

  test("when a tool reads the operation, then the example names production mode and the endpoint, with its status", () => {
    expect(operation["x-example-requests"].stepUpRequired).toMatchObject({
      status: 403,
      parameters: { path: { mode: "production", id: "we_5Rt7Yu9Io1Pa3Sd5Fg7H" } },
    });
    expect(operation["x-example-requests"].disabled).toMatchObject({
      status: 200,
      parameters: { path: { mode: "test" } },
    });
  });

  test("when a reader reads the example's body and answer, then each says it is sent in production mode", () => {
    const body = operation.requestBody.content["application/json"].examples.stepUpRequired;
    const answer = operation.responses["403"].content["application/json"].examples.stepUpRequired;
    for (const example of [body, answer]) expect(example.description).toContain("`mode` = `production`");
    expect(operation.requestBody.content["application/json"].examples.disabled.description).toContain(
      "`mode` = `test`",
    );
  });
});

const methods = ["get", "put", "post", "patch", "delete"] as const;

test.each(["openapi.yaml", "admin-openapi.yaml", "dashboard-openapi.yaml"])(
  "when every example request of %s is read, then it names a status the operation declares and only parameters it takes",
  (name) => {
    const document = read(name);
    const wrong: string[] = [];
    let count = 0;
    for (const [path, item] of Object.entries(document.paths as Json))
      for (const method of methods) {
        const operation = (item as Json)[method] as Json | undefined;
        const declared = ((operation?.parameters ?? []) as Json[]).map((p) =>
          p.$ref ? document.components.parameters[p.$ref.split("/").at(-1)] : p,
        );
        for (const [title, request] of Object.entries((operation?.["x-example-requests"] ?? {}) as Json)) {
          count++;
          if (!operation?.responses[String(request.status)])
            wrong.push(`${method} ${path} ${title}: status ${request.status}`);
          for (const [where, values] of Object.entries((request.parameters ?? {}) as Json))
            for (const parameter of Object.keys(values))
              if (!declared.some((p) => p.in === where && p.name === parameter))
                wrong.push(`${method} ${path} ${title}: ${where} ${parameter}`);
        }
      }
    expect(count).toBeGreaterThan(10);
    expect(wrong).toEqual([]);
  },
);
