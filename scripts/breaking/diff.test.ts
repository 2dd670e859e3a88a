import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import YAML from "yaml";
import { breakingDifferences } from "./diff.js";

type Doc = Parameters<typeof breakingDifferences>[0] & {
  components: { schemas: Record<string, any> };
  paths: Record<string, any>;
  "x-webhooks": Record<string, any>;
};
// The released 1.0.0 contract is the base each mutation starts from: openapi-diff compares the
// current document's long patterns (UTC timestamps, the 27 states) as regular languages, which
// takes minutes per comparison, while the released document's take seconds. `npm run
// check:breaking` itself compares the released document with the current one.
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

  test("when an optional response field and a new operation are added, then nothing is breaking", async () => {
    const after = current();
    after.components.schemas.Transaction.properties.note = { type: "string" };
    after.paths["/api/v1/ping-extra"] = {
      get: { operationId: "pingExtra", responses: { "200": { description: "ok" } } },
    };
    expect(await breakingDifferences(current(), after)).toEqual([]);
  });
});
