import { describe, expect, test } from "vitest";
import { breakingDifferences } from "./diff.js";
import { readOpenApiDocument } from "../../server/src/http/kit/openapi-document.js";

// The changes api-smart-diff 1.0.6 classifies the wrong way round (rules.ts decides instead), and
// the README's rules around them. Each starts from the released 1.0.0 contract.
type Doc = any;
const released = (): Doc => readOpenApiDocument("spec/releases/1.0.0/openapi.yaml");
const schemas = (d: Doc) => d.components.schemas;
const body = "requestBody.content.application/json.schema";
const transaction = "paths./api/v1/transactions/{id}.get.responses.200.content.application/json.schema";

describe("which changes break (rules.ts over api-smart-diff)", () => {
  test.each([
    {
      name: "a response field whose type changed",
      mutate: (d: Doc) => {
        schemas(d).Transaction.properties.feeCents = { type: "string" };
      },
      location: `${transaction}.properties.feeCents.type`,
      from: "integer",
      to: "string",
    },
    {
      name: "a response field that may now be null",
      mutate: (d: Doc) => {
        schemas(d).Transaction.properties.id.nullable = true;
      },
      location: `${transaction}.properties.id.nullable`,
      from: "absent",
      to: true,
    },
    {
      name: "a response field removed though optional (dispute)",
      mutate: (d: Doc) => {
        delete schemas(d).Transaction.properties.dispute;
      },
      location: `${transaction}.properties.dispute`,
      from: "present",
      to: "absent",
    },
    {
      name: "a response field no longer required",
      mutate: (d: Doc) => {
        schemas(d).Transaction.required = schemas(d).Transaction.required.filter((r: string) => r !== "feeCents");
      },
      location: `${transaction}.required`,
      from: "feeCents",
      to: "absent",
    },
    {
      name: "an optional field removed from a request that refuses unknown fields",
      mutate: (d: Doc) => {
        delete schemas(d).CreatePixChargeRequest.properties.description;
      },
      location: `paths./api/v1/charges/pix.post.${body}.properties.description`,
      from: "present",
      to: "absent",
    },
    {
      name: "an enum given to a request field that had none",
      mutate: (d: Doc) => {
        schemas(d).CreatePixChargeRequest.properties.description.enum = ["Pedido"];
      },
      location: `paths./api/v1/charges/pix.post.${body}.properties.description.enum`,
      from: "absent",
      to: "Pedido",
    },
    {
      name: "a request field that may no longer be null",
      mutate: (d: Doc) => {
        const field = Object.values(schemas(d).CreatePaymentLinkRequest.properties).find((p: any) => p.nullable) as any;
        delete field.nullable;
      },
      location: `paths./api/v1/payment-links.post.${body}.properties.`,
      from: true,
      to: "absent",
    },
    {
      name: "a required body given to an operation that had none",
      mutate: (d: Doc) => {
        d.paths["/api/v1/payment-links/{id}/deactivate"].post.requestBody = {
          required: true,
          content: { "application/json": { schema: { type: "object" } } },
        };
      },
      location: "paths./api/v1/payment-links/{id}/deactivate.post.requestBody",
      from: "absent",
      to: "present",
    },
  ])("when the contract has $name, then it is breaking: $location", ({ mutate, location, from, to }) => {
    const after = released();
    mutate(after);
    const found = breakingDifferences(released(), after);
    expect(found).toContainEqual(expect.objectContaining({ location: expect.stringContaining(location), from, to }));
  });

  test.each([
    {
      name: "a request field that may now be null",
      mutate: (d: Doc) => {
        schemas(d).CreatePixChargeRequest.properties.description.nullable = true;
      },
    },
    {
      name: "a response schema that stops refusing unknown fields",
      mutate: (d: Doc) => {
        delete schemas(d).Transaction.additionalProperties;
      },
    },
    {
      name: "an enum given to a response field that had none",
      mutate: (d: Doc) => {
        schemas(d).Transaction.properties.description.enum = ["Pedido"];
      },
    },
    {
      name: "a vendor extension on a parameter",
      mutate: (d: Doc) => {
        Object.values(d.components.parameters as Record<string, any>)[0]["x-replay-window-seconds"] = 86400;
      },
    },
  ])("when the contract has $name, then nothing is breaking", ({ mutate }) => {
    const after = released();
    mutate(after);
    expect(breakingDifferences(released(), after)).toEqual([]);
  });
});
