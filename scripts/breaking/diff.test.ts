import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import YAML from "yaml";
import { breakingDifferences } from "./diff.js";

type Doc = Parameters<typeof breakingDifferences>[0] & {
  components: { schemas: Record<string, any>; parameters: Record<string, any> };
  paths: Record<string, any>;
  "x-webhooks": Record<string, any>;
};
// Each mutation starts from the released 1.0.0 contract. openapi-diff's set algebra does not
// finish comparing today's Transaction (with its refund and dispute fields) against a copy that
// lost a field; the released one takes seconds. `npm run check:breaking` itself compares the
// released contract with the current one, which it does in seconds.
const current = (): Doc => YAML.parse(readFileSync("spec/releases/1.0.0/openapi.yaml", "utf8"));
const admin = (): Doc => YAML.parse(readFileSync("spec/releases/1.0.0/admin-openapi.yaml", "utf8"));

/** The first object schema under components whose properties include `name`. */
function schemaWith(doc: Doc, property: string, where: (name: string) => boolean = () => true): any {
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (where(name) && schema?.properties?.[property]) return schema;
  }
  throw new Error(`no schema with ${property}`);
}

describe("breaking-change check (openapi-diff, webhooks as responses)", () => {
  test("when nothing changed, then nothing is breaking", async () => {
    expect(await breakingDifferences(current(), current())).toEqual([]);
    expect(await breakingDifferences(admin(), admin())).toEqual([]);
  });

  test.each([
    {
      name: "a removed response field",
      at: "/api/v1/transactions",
      mutate: (d: Doc) => {
        const t = d.components.schemas.Transaction;
        delete t.properties.feeCents;
        t.required = t.required.filter((r: string) => r !== "feeCents");
      },
    },
    {
      name: "a tightened maxLength",
      at: "/api/v1/charges/pix",
      mutate: (d: Doc) => {
        d.components.schemas.CreatePixChargeRequest.properties.description.maxLength = 100;
      },
    },
    {
      name: "a raised minimum",
      at: "/api/v1/charges/pix",
      mutate: (d: Doc) => {
        // Wherever the bound sits: on the property, or on the schema it refers to (directly or via allOf).
        const amount = d.components.schemas.CreatePixChargeRequest.properties.amountCents;
        const ref: string | undefined = amount.$ref ?? amount.allOf?.[0]?.$ref;
        const holder =
          amount.minimum !== undefined || !ref ? amount : d.components.schemas[ref.split("/").at(-1) as string];
        holder.minimum = (holder.minimum ?? 0) + 100;
      },
    },
    {
      name: "a tightened pattern on a query parameter",
      at: "/api/v1/transactions.get.parameters.query:createdFrom.pattern",
      mutate: (d: Doc) => {
        const parameter = Object.values(d.components.parameters).find((p) => p.name === "createdFrom");
        parameter.schema = { type: "string", pattern: "^2026-.*Z$" };
      },
    },
    {
      name: "a lowered maximum of a query parameter",
      at: "/api/v1/transactions.get.parameters.query:limit.maximum",
      mutate: (d: Doc) => {
        const parameter = Object.values(d.components.parameters).find((p) => p.name === "limit");
        parameter.schema = { ...parameter.schema, maximum: 10 };
      },
    },
    {
      name: "a response bound that widens",
      at: "/api/v1/transactions/{id}.get.responses.200",
      // Removed from the released document's point of view: a maximum that goes away.
      reversed: true,
      mutate: (d: Doc) => {
        d.components.schemas.Transaction.properties.id.maxLength = 40;
      },
    },
    {
      name: "a response pattern that admits more",
      at: "/api/v1/balance.get.responses.401",
      mutate: (d: Doc) => {
        // The error envelope's timestamp, wherever its pattern sits.
        const timestamp = schemaWith(d, "timestamp", (n) => n === "ErrorBody").properties.timestamp;
        const holder = timestamp.pattern ? timestamp : d.components.schemas[timestamp.allOf[0].$ref.split("/").at(-1)];
        holder.pattern = "^.+$";
      },
    },
    {
      name: "a new required request field",
      at: "/api/v1/charges/pix",
      mutate: (d: Doc) => {
        const r = d.components.schemas.CreatePixChargeRequest;
        r.properties.channel = { type: "string" };
        r.required = [...r.required, "channel"];
      },
    },
    {
      name: "a removed response header",
      at: "/api/v1/balance",
      mutate: (d: Doc) => {
        const ok = d.paths["/api/v1/balance"].get.responses["200"];
        ok.headers = { ...ok.headers, "x-gone": { required: true, schema: { type: "string" } } };
      },
      // Removed from the released document's point of view: present before, absent after.
      reversed: true,
    },
    {
      name: "a removed operation",
      at: "/api/v1/balance",
      mutate: (d: Doc) => {
        delete d.paths["/api/v1/balance"];
      },
    },
    {
      name: "a removed field of a webhook payload",
      at: "/x-webhooks/",
      mutate: (d: Doc) => {
        // Payload schemas of their own, so only the webhook changes, not the API's responses.
        const envelope = schemaWith(d, "apiVersion", (n) => n.endsWith("Event"));
        delete envelope.properties.apiVersion;
        envelope.required = envelope.required.filter((r: string) => r !== "apiVersion");
      },
    },
  ])("when the contract has $name, then the check reports it as breaking at $at", async ({ mutate, at, reversed }) => {
    const changed = current();
    mutate(changed);
    const [before, after] = reversed ? [changed, current()] : [current(), changed];
    const found = await breakingDifferences(before, after);
    expect(found.length).toBeGreaterThan(0);
    expect(found.flatMap((d) => d.locations).some((l) => l.includes(at))).toBe(true);
  });

  test("when a response bound narrows, a response pattern admits less, or a bound moves into the schema it refers to, then nothing is breaking", async () => {
    const after = current();
    const transaction = after.components.schemas.Transaction.properties;
    transaction.id.maxLength = 40;
    transaction.id.pattern = "^txn_[A-Za-z0-9]{20}$";
    // The amount's bounds written on the property instead of on the scalar it refers to.
    const properties = after.components.schemas.CreatePixChargeRequest.properties;
    const scalar = after.components.schemas[properties.amountCents.allOf[0].$ref.split("/").at(-1)];
    properties.amountCents = { ...scalar, description: properties.amountCents.description };
    expect(await breakingDifferences(current(), after)).toEqual([]);
  });

  test("when a member of a union in a response loses a required field, then the check reports it; when nothing changed, it does not", async () => {
    // Unions of named schemas (the events list's Event) are compared member by member.
    const union = (kinds: Record<string, string[]>): Doc =>
      ({
        openapi: "3.0.0",
        info: { title: "union", version: "1.0.0" },
        paths: {
          "/events": {
            get: {
              operationId: "listEvents",
              responses: {
                "200": {
                  description: "ok",
                  content: {
                    "application/json": {
                      schema: { anyOf: Object.keys(kinds).map((k) => ({ $ref: `#/components/schemas/${k}` })) },
                    },
                  },
                },
              },
            },
          },
        },
        components: {
          schemas: Object.fromEntries(
            Object.entries(kinds).map(([k, fields]) => [
              k,
              {
                type: "object",
                required: fields,
                properties: Object.fromEntries(fields.map((f) => [f, { type: "string" }])),
              },
            ]),
          ),
        },
        "x-webhooks": {},
      }) as unknown as Doc;
    const before = union({ Paid: ["id", "type", "paidAt"], Failed: ["id", "type", "reason"] });
    expect(await breakingDifferences(before, before)).toEqual([]);
    const after = union({ Paid: ["id", "type"], Failed: ["id", "type", "reason"] });
    const found = await breakingDifferences(before, after);
    expect(found.flatMap((d) => d.locations).some((l) => l.includes("/events"))).toBe(true);
  });

  test("when an optional response field and a new operation are added, then nothing is breaking", async () => {
    const after = current();
    after.components.schemas.Transaction.properties.note = { type: "string" };
    after.paths["/api/v1/ping-extra"] = {
      get: { operationId: "pingExtra", responses: { "200": { description: "ok" } } },
    };
    expect(await breakingDifferences(current(), after)).toEqual([]);
  });
});
