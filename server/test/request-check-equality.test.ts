import type { AddressInfo } from "node:net";
import { join } from "node:path";
import express, { type ErrorRequestHandler } from "express";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { publicOperations } from "../src/http/operations.js";
import { requestChecks } from "../src/http/request-checks.js";
import { jsonBodies } from "../src/http/request-validation.js";
import { referenceValidator, ValidatorDisagreement } from "../src/http/validator-cross-check.js";
import { validatorDocument } from "../src/http/kit/openapi-document.js";

// The development cross-check (http/validator-cross-check.ts) is what holds our request check
// equal to express-openapi-validator in every test run: here it is shown to fail when the two
// differ. Our check is given a document whose charge description allows 10 characters where the
// published one allows 180; the reference keeps the published one.

const documentPath = join(import.meta.dirname, "../../generated/openapi.yaml");
const ignored = (path: string) => !path.startsWith("/api/") || path.endsWith("/");

function narrowed() {
  const document = validatorDocument(documentPath) as {
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const description = document.components.schemas.ChargeDescription;
  if (!description) throw new Error("ChargeDescription is in the document");
  description.maxLength = 10;
  return document;
}

let server: ReturnType<express.Express["listen"]>;
let base: string;
const caught: unknown[] = [];
beforeAll(async () => {
  const app = express();
  app.use(jsonBodies());
  app.use(
    referenceValidator({
      document: validatorDocument(documentPath),
      checks: requestChecks(narrowed(), publicOperations),
      matcher: publicOperations,
      ignored,
      admit: (_req, res) => {
        res.locals.admitted = true;
      },
    }),
  );
  // No body (`end`, not `json`): the reference's response check reads JSON bodies only.
  app.use((_req, res) => res.status(res.locals.admitted ? 200 : 404).end());
  const recordError: ErrorRequestHandler = (err, _req, res, _next) => {
    caught.push(err);
    res.status(err instanceof ValidatorDisagreement ? 500 : 400).end();
  };
  app.use(recordError);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const charge = (description: string) =>
  fetch(`${base}/api/v1/charges/pix`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      amountCents: 1000,
      description,
      customer: {
        name: "Maria",
        email: "m@example.com",
        phone: "11987654321",
        documentType: "CPF",
        document: "52998224725",
      },
    }),
  });

describe("the development cross-check of the request check", () => {
  test("when both checks admit a request, then it passes on", async () => {
    const res = await charge("Pedido 1");
    expect(caught).toEqual([]);
    expect(res.status).toBe(200);
  });

  test("when both refuse it alike, then the refusal stands", async () => {
    const res = await charge("P");
    expect(res.status).toBe(400);
    expect(caught.at(-1)).not.toBeInstanceOf(ValidatorDisagreement);
  });

  test("when ours refuses what the reference admits, then it is a disagreement (500), with both verdicts", async () => {
    const res = await charge("Pedido de número 1234");
    const error = caught.at(-1) as ValidatorDisagreement;

    expect(res.status).toBe(500);
    expect(error).toBeInstanceOf(ValidatorDisagreement);
    expect(JSON.stringify(error.ours)).toContain("description");
    expect(error.reference).toMatchObject({ operationId: "createPixCharge" });
  });
});
