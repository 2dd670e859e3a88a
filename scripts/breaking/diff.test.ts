import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import YAML from "yaml";
import { breakingDifferences } from "./diff.js";

type Doc = Parameters<typeof breakingDifferences>[0] & {
  components: { schemas: Record<string, any>; parameters: Record<string, any> };
  paths: Record<string, any>;
  "x-webhooks": Record<string, any>;
};
// Each mutation starts from the released 1.0.0 contract, which no one regenerates: the tests stay
// the same while the current documents change. `npm run check:breaking` compares the released
// contract with the current one. Each document is read once; each test gets its own copies.
const released = (name: string) => {
  let parsed: Doc | undefined;
  return (): Doc => structuredClone((parsed ??= YAML.parse(readFileSync(`spec/releases/1.0.0/${name}`, "utf8"))));
};
const current = released("openapi.yaml");
const admin = released("admin-openapi.yaml");

type Item = Record<string, unknown>;

/** The components (`schemas/Transaction`) a node refers to, directly or through other components. */
function referred(doc: Doc, node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) referred(doc, item, found);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/")) {
        const name = value.slice("#/components/".length);
        if (found.has(name)) continue;
        found.add(name);
        const [kind, ...rest] = name.split("/");
        referred(
          doc,
          (doc.components as Record<string, Record<string, unknown>>)[kind as string]?.[rest.join("/")],
          found,
        );
      } else referred(doc, value, found);
    }
  }
  return found;
}

/**
 * `before` and `after` with only the operations and webhooks a mutation touched: those that differ,
 * exist on one side only, or refer to a component that differs. The others are the same on both
 * sides, so they hold no difference, and comparing them is most of the check's seconds: the
 * mutations below compare what they changed, `when nothing changed` compares the whole documents.
 */
function touched(before: Doc, after: Doc): [Doc, Doc] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const components = (doc: Doc) => (doc.components ?? {}) as Record<string, Record<string, unknown>>;
  const changed = new Set<string>();
  for (const kind of new Set([...Object.keys(components(before)), ...Object.keys(components(after))])) {
    const [was, is] = [components(before)[kind] ?? {}, components(after)[kind] ?? {}];
    for (const name of new Set([...Object.keys(was), ...Object.keys(is)])) {
      if (!same(was[name], is[name])) changed.add(`${kind}/${name}`);
    }
  }
  const keep = (section: "paths" | "x-webhooks") => {
    const [was, is] = [(before[section] ?? {}) as Item, (after[section] ?? {}) as Item];
    const kept = [...new Set([...Object.keys(was), ...Object.keys(is)])].filter(
      (key) =>
        !same(was[key], is[key]) ||
        [...referred(before, was[key]), ...referred(after, is[key])].some((name) => changed.has(name)),
    );
    const only = (items: Item) => Object.fromEntries(kept.filter((k) => k in items).map((k) => [k, items[k]]));
    return [only(was), only(is)];
  };
  const [paths, webhooks] = [keep("paths"), keep("x-webhooks")];
  return [
    { ...before, paths: paths[0], "x-webhooks": webhooks[0] } as Doc,
    { ...after, paths: paths[1], "x-webhooks": webhooks[1] } as Doc,
  ];
}

/** `breakingDifferences` over what a mutation touched (see `touched`). */
const differencesOfChange = (before: Doc, after: Doc) => breakingDifferences(...touched(before, after));

/** The parameter component named `name` (its wire name). */
const parameterNamed = (doc: Doc, name: string): any => {
  const found = Object.values(doc.components.parameters).find((p) => p.name === name);
  if (!found) throw new Error(`no parameter ${name}`);
  return found;
};

const body = "requestBody.content.application/json.schema";

/** The first object schema under components whose properties include `name`. */
function schemaWith(doc: Doc, property: string, where: (name: string) => boolean = () => true): any {
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (where(name) && schema?.properties?.[property]) return schema;
  }
  throw new Error(`no schema with ${property}`);
}

describe("breaking-change check (structure, bounds, headers; webhooks as responses)", () => {
  test("when nothing changed, then nothing is breaking", async () => {
    expect(breakingDifferences(current(), current())).toEqual([]);
    expect(breakingDifferences(admin(), admin())).toEqual([]);
  });

  test("when a shared schema changes, then comparing what the change touched finds what comparing the whole documents finds", () => {
    // The tests below compare only what each mutation touched (`touched`): here, once, against the whole.
    const after = current();
    after.components.schemas.TransactionStatus.enum.push("ON_HOLD");
    const whole = breakingDifferences(current(), after);
    expect(whole.length).toBeGreaterThan(1);
    expect(differencesOfChange(current(), after)).toEqual(whole);
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
    const found = differencesOfChange(before, after);
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((d) => d.location.includes(at))).toBe(true);
  });

  // Each kind issue 24 found unreported, with the exact difference the check must name: where,
  // and the value before and after (`absent` where there was none, `present` for a whole thing).
  test.each([
    {
      name: "a request enum narrowed (PixKeyType without PHONE)",
      mutate: (d: Doc) => {
        d.components.schemas.PixKeyType.enum = ["CPF", "CNPJ", "EMAIL", "EVP"];
      },
      location: `paths./api/v1/withdrawals.post.${body}.properties.pixKeyType.enum`,
      from: "PHONE",
      to: "absent",
    },
    {
      name: "a query parameter renamed (paymentLinkId to linkId)",
      mutate: (d: Doc) => {
        parameterNamed(d, "paymentLinkId").name = "linkId";
      },
      location: "paths./api/v1/transactions.get.parameters.query:paymentLinkId",
      from: "present",
      to: "absent",
    },
    {
      name: "an optional query parameter made required (active)",
      mutate: (d: Doc) => {
        parameterNamed(d, "active").required = true;
      },
      location: "paths./api/v1/payment-links.get.parameters.query:active.required",
      from: "absent",
      to: true,
    },
    {
      name: "a query parameter's enum narrowed (active to true only)",
      mutate: (d: Doc) => {
        parameterNamed(d, "active").schema.enum = ["true"];
      },
      location: "paths./api/v1/payment-links.get.parameters.query:active.schema.enum",
      from: "false",
      to: "absent",
    },
    {
      name: "a query parameter moved into a header",
      mutate: (d: Doc) => {
        parameterNamed(d, "paymentLinkId").in = "header";
      },
      location: "paths./api/v1/transactions.get.parameters.query:paymentLinkId",
      from: "present",
      to: "absent",
    },
    {
      name: "a new required query parameter",
      mutate: (d: Doc) => {
        d.paths["/api/v1/balance"].get.parameters.push({
          name: "at",
          in: "query",
          required: true,
          schema: { type: "string" },
        });
      },
      location: "paths./api/v1/balance.get.parameters.query:at",
      from: "absent",
      to: "present",
    },
    {
      name: "a value added to a response enum (a transaction status)",
      mutate: (d: Doc) => {
        d.components.schemas.TransactionStatus.enum.push("ON_HOLD");
      },
      location:
        "paths./api/v1/transactions/{id}.get.responses.200.content.application/json.schema.properties.status.enum",
      from: "absent",
      to: "ON_HOLD",
    },
    {
      name: "a value added to an enum of a webhook payload (a transaction status)",
      mutate: (d: Doc) => {
        d.components.schemas.TransactionStatus.enum.push("ON_HOLD");
      },
      location:
        "paths./x-webhooks/transaction.paid.get.responses.200.content.application/json.schema.properties.data.properties.object.properties.status.enum",
      from: "absent",
      to: "ON_HOLD",
    },
    {
      name: "a request field whose type changed",
      mutate: (d: Doc) => {
        d.components.schemas.CreatePixChargeRequest.properties.description = { type: "integer" };
      },
      location: `paths./api/v1/charges/pix.post.${body}.properties.description.type`,
      from: "string",
      to: "integer",
    },
  ])(
    "when the contract has $name, then the check names it: $location, $from → $to",
    ({ mutate, location, from, to }) => {
      const after = current();
      mutate(after);
      const found = differencesOfChange(current(), after);
      expect(found).toContainEqual(expect.objectContaining({ location, from, to }));
    },
  );

  test.each([
    {
      name: "a new optional request field",
      mutate: (d: Doc) => {
        d.components.schemas.CreatePixChargeRequest.properties.channel = { type: "string", maxLength: 20 };
      },
    },
    {
      name: "a new response field",
      mutate: (d: Doc) => {
        d.components.schemas.Transaction.properties.note = { type: "string" };
      },
    },
    {
      name: "a new operation",
      mutate: (d: Doc) => {
        d.paths["/api/v1/ping-extra"] = {
          get: { operationId: "pingExtra", responses: { "200": { description: "ok" } } },
        };
      },
    },
    {
      name: "a new optional query parameter",
      mutate: (d: Doc) => {
        d.paths["/api/v1/balance"].get.parameters.push({ name: "at", in: "query", schema: { type: "string" } });
      },
    },
    {
      name: "a value added to an enum only requests carry (active)",
      mutate: (d: Doc) => {
        parameterNamed(d, "active").schema.enum.push("all");
      },
    },
    {
      name: "a value removed from an enum only responses carry (a transaction status)",
      mutate: (d: Doc) => {
        const status = d.components.schemas.TransactionStatus;
        status.enum = status.enum.filter((v: string) => v !== "PROCESSING");
      },
    },
    {
      name: "a renamed path parameter",
      mutate: (d: Doc) => {
        d.paths["/api/v1/transactions/{transactionId}"] = d.paths["/api/v1/transactions/{id}"];
        delete d.paths["/api/v1/transactions/{id}"];
        const parameter = structuredClone(parameterNamed(d, "id"));
        parameter.name = "transactionId";
        d.paths["/api/v1/transactions/{transactionId}"].get.parameters = [parameter];
      },
    },
  ])("when the contract has $name, then nothing is breaking", ({ mutate }) => {
    const after = current();
    mutate(after);
    expect(differencesOfChange(current(), after)).toEqual([]);
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
    expect(differencesOfChange(current(), after)).toEqual([]);
  });

  /** A document of one operation, `GET /events`, whose answer is `schema` (beside `components`, if given). */
  const eventsDocument = (schema: unknown, components?: unknown): Doc =>
    ({
      openapi: "3.0.0",
      info: { title: "events", version: "1.0.0" },
      paths: {
        "/events": {
          get: {
            operationId: "listEvents",
            responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
          },
        },
      },
      ...(components ? { components } : {}),
      "x-webhooks": {},
    }) as unknown as Doc;
  /** An object of required string fields. */
  const withFields = (fields: string[]) => ({
    type: "object",
    required: fields,
    properties: Object.fromEntries(fields.map((f): [string, unknown] => [f, { type: "string" }])),
  });

  test("when a member of a union in a response loses a required field, then the check reports it; when nothing changed, it does not", async () => {
    // Unions of named schemas (the events list's Event) are compared member by member.
    const union = (kinds: Record<string, string[]>): Doc =>
      eventsDocument(
        { anyOf: Object.keys(kinds).map((k) => ({ $ref: `#/components/schemas/${k}` })) },
        { schemas: Object.fromEntries(Object.entries(kinds).map(([k, fields]) => [k, withFields(fields)])) },
      );
    const before = union({ Paid: ["id", "type", "paidAt"], Failed: ["id", "type", "reason"] });
    expect(breakingDifferences(before, before)).toEqual([]);
    const after = union({ Paid: ["id", "type"], Failed: ["id", "type", "reason"] });
    const found = breakingDifferences(before, after);
    expect(found.some((d) => d.location.includes("/events"))).toBe(true);
  });

  test("when one member of a union changes among members that did not and one is added, then each difference is at its member's index, as when every member is compared", async () => {
    // Members equal in both at their index are set aside before api-smart-diff (structure.ts,
    // setAsideAlternatives): what is found, and where, must not move.
    const union = (members: string[][]): Doc => eventsDocument({ anyOf: members.map(withFields) });
    const before = union([
      ["id", "paidAt"],
      ["id", "reason"],
      ["id", "refundedAt"],
    ]);
    const after = union([["id", "paidAt"], ["id"], ["id", "refundedAt"], ["id", "disputedAt"]]);
    const found = breakingDifferences(before, after).map(({ code, location }) => `${code} ${location}`);
    expect(found).toEqual([
      "response.body.required.remove paths./events.get.responses.200.content.application/json.schema.anyOf.1.required",
      "response.body.remove paths./events.get.responses.200.content.application/json.schema.anyOf.1.properties.reason",
      "response.body.add paths./events.get.responses.200.content.application/json.schema.anyOf.3",
    ]);
  });

  describe("a union whose members carry their kind (an event's type)", () => {
    // Members lined up by their kind are compared pair by pair (structure.ts, setAsideAlternatives);
    // members that do not line up are left to api-smart-diff's matching of every one with every one.
    const kind = (type: string, fields: string[]) => {
      const member = withFields(["type", ...fields]);
      member.properties.type = { type: "string", enum: [type] };
      return member;
    };
    const events = (members: ReturnType<typeof kind>[]): Doc =>
      eventsDocument({
        type: "object",
        required: ["data"],
        properties: { data: { type: "array", items: { anyOf: members } } },
      });
    const place = "paths./events.get.responses.200.content.application/json.schema.properties.data.items.anyOf";

    test("when two kinds change in place, one stays and one is added, then each change is found at its kind's index, and nothing else", () => {
      const before = events([kind("paid", ["paidAt"]), kind("failed", ["reason"]), kind("refunded", ["amount"])]);
      const after = events([
        kind("paid", ["paidAt"]),
        kind("failed", []),
        kind("refunded", ["amount", "refundedAt"]),
        kind("disputed", ["disputedAt"]),
      ]);
      const found = breakingDifferences(before, after).map(({ code, location }) => `${code} ${location}`);
      expect(found.sort()).toEqual(
        [
          `response.body.required.remove ${place}.1.required`,
          `response.body.remove ${place}.1.properties.reason`,
          `response.body.add ${place}.3`,
        ].sort(),
      );
    });

    test("when a kind is put between two others, then the members are matched by what they hold, not by index: the new kind is added and the others' changes are found", () => {
      const before = events([kind("paid", ["paidAt"]), kind("refunded", ["amount"])]);
      const after = events([kind("paid", ["paidAt"]), kind("failed", ["reason"]), kind("refunded", [])]);
      const found = breakingDifferences(before, after).map(({ code, location }) => `${code} ${location}`);
      expect(found).toContain(`response.body.add ${place}.1`);
      expect(found.filter((line) => line.endsWith("properties.amount"))).toHaveLength(1);
      expect(found.some((line) => line.includes("properties.paidAt") || line.includes("properties.reason"))).toBe(
        false,
      );
    });
  });
});
