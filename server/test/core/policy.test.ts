import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import {
  amountLimits,
  brazilianStates,
  checkoutFieldLengths,
  customerTagLength,
  defaultPlan,
  descriptionLength,
  idempotencyWindowSeconds,
  maxFieldErrors,
  maxPaymentsRange,
  metadataLimits,
  pageLimit,
  permissions,
  personLimits,
  planLimits,
  refundLimits,
  releasePeriodDays,
  secretOverlapSeconds,
} from "../../src/domain/core/policy.js";
import { MAX_AMOUNT_CENTS } from "../../src/pix/brcode.js";
import * as generatedRules from "../../../generated/rules.js";
import { canCall, type OperationId } from "../../../generated/dashboard-operations.js";
import { type OpenApiDocument, readOperations } from "../../../scripts/generate/emit-operations.js";
import { documents } from "../../../scripts/generate/documents.js";
import { groups, lists, singles, type Source } from "../../../scripts/generate/rule-sources.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// The numbers of the rules are written once, in the spec; `domain/policy.ts` exports what
// `npm run generate` reads back from the documents (`generated/rules.ts`), and `check:generated`
// keeps that file current. What is left to test: that the numbers are still the seed's and the
// protocol's, that the sentences partners read state the same numbers as the bounds beside them,
// and that every bound sits where the validator and generated clients see it.

type Schema = {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxProperties?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
};
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, { name: string; description?: string; schema: Schema }>;
  };
};

const generated = resolve(fileURLToPath(import.meta.url), "../../../../generated");
const load = (name: string) => readOpenApiDocument(join(generated, name)) as Doc;
const publicDoc = load("openapi.yaml");
const adminDoc = load("admin-openapi.yaml");
const everyDocument = readdirSync(generated)
  .filter((name) => name.endsWith("openapi.yaml"))
  .map((name) => ({ name, doc: load(name) }));

/** A component schema by name, failing clearly when the spec no longer has it. */
function schema(doc: Doc, name: string): Schema {
  const found = doc.components.schemas[name];
  if (!found) throw new Error(`schema ${name} is not in the document`);
  return found;
}

/** Follows `$ref` and single-member `allOf` to the schema that holds the constraints. */
function resolveSchema(doc: Doc, s: Schema): Schema {
  if (s.$ref) return resolveSchema(doc, schema(doc, s.$ref.replace(/^.*\//, "")));
  if (s.allOf?.length === 1 && s.allOf[0]) return { ...resolveSchema(doc, s.allOf[0]), ...withoutAllOf(s) };
  return s;
}
function withoutAllOf(s: Schema): Schema {
  const rest = { ...s };
  delete rest.allOf;
  return rest;
}

/** Every schema object in the document, with where it is. */
function* walk(value: unknown, where: string): Generator<[string, Schema]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* walk(item, `${where}/${i}`);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const object = value as Record<string, unknown>;
  if ("type" in object || "allOf" in object || "$ref" in object) yield [where, object as Schema];
  for (const [key, child] of Object.entries(object)) {
    if (key !== "example" && key !== "examples") yield* walk(child, `${where}/${key}`);
  }
}

/** "999 999 999 999" */
const spaced = (n: number) => n.toLocaleString("en-US").replace(/,/g, " ");

/** A schema's description on one line. */
const said = (s: { description?: string } | undefined) => (s?.description ?? "").replace(/\s+/g, " ");

describe("the rule numbers", () => {
  test("when the generated rules are read, then they are the seed's", () => {
    expect(amountLimits).toMatchObject({ minChargeCents: 500, minWithdrawalCents: 600 });
    expect(descriptionLength).toEqual({ min: 3, max: 180 });
    expect(personLimits).toEqual({ nameMin: 2, nameMax: 120, emailMax: 160 });
    expect(pageLimit).toEqual({ min: 1, max: 100, default: 20 });
  });

  test("when the largest amount is read, then it is what BR Code field 54 can carry", () => {
    expect(amountLimits.maxCents).toBe(MAX_AMOUNT_CENTS);
  });

  test("when the permissions are read, then each is one some route requires, and every route's is one of them", () => {
    const required = new Set(
      Object.values(publicDoc.paths).flatMap((item) =>
        Object.values(item).flatMap((op) => {
          const permission = (op as { "x-permission"?: string })["x-permission"];
          return permission ? [permission] : [];
        }),
      ),
    );

    expect([...required].sort()).toEqual([...permissions].sort());
  });
});

/**
 * The value a rule's source names, found here apart from the generator: each pointer segment read
 * in the node, or else in what its `$ref` or one-member `allOf` names.
 */
const parsed = new Map<string, Doc>();
function valueAt({ document, pointer }: Source): unknown {
  const file = documents.find((d) => d.name === document)?.openapi ?? "";
  const doc = parsed.get(file) ?? load(file);
  parsed.set(file, doc);
  const follow = (node: unknown, segment: string): unknown => {
    if (node === null || typeof node !== "object") return undefined;
    const object = node as Record<string, unknown>;
    if (segment in object) return object[segment];
    const ref = (object.$ref ?? (Array.isArray(object.allOf) && object.allOf.length === 1 ? object.allOf[0] : null)) as
      string | Record<string, unknown> | null;
    if (typeof ref === "string") return follow(valueAt({ document, pointer: ref.slice(1) }), segment);
    return ref ? follow(ref, segment) : undefined;
  };
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>(follow, doc);
}

const exported = generatedRules as unknown as Record<string, unknown>;

describe("each generated rule and the document it is read from", () => {
  const grouped = Object.entries(groups).flatMap(([name, group]) =>
    Object.entries(group.values).map(([key, source]) => ({
      rule: `${name}.${key}`,
      source,
      value: (exported[name] as Record<string, unknown> | undefined)?.[key],
    })),
  );
  const single = Object.entries(singles).map(([name, source]) => ({ rule: name, source, value: exported[name] }));
  const listed = Object.entries(lists).map(([name, source]) => ({ rule: name, source, value: exported[name] }));

  test.each([...grouped, ...single, ...listed])(
    "when $rule is read, then it is the value at its pointer",
    ({ source, value }) => {
      expect(value).toBeDefined();
      expect(value).toEqual(valueAt(source));
    },
  );

  test("when the durations, webhook numbers and dashboard lists are read, then they are the ones the spec has always said", () => {
    expect(generatedRules.defaultExpirySeconds).toEqual({ charge: 24 * 3600, paymentLink: 30 * 24 * 3600 });
    expect(generatedRules.emailLinkSeconds).toEqual({
      confirmEmail: 24 * 3600,
      resetPassword: 3600,
      invitation: 7 * 24 * 3600,
    });
    expect(generatedRules.sessionLifetime).toEqual({ idleSeconds: 30 * 60, absoluteSeconds: 12 * 3600 });
    expect(generatedRules.stepUpSeconds).toBe(10 * 60);
    expect(generatedRules.webhookRetryScheduleSeconds).toEqual([
      0,
      5,
      5 * 60,
      30 * 60,
      2 * 3600,
      5 * 3600,
      10 * 3600,
      14 * 3600,
      20 * 3600,
      24 * 3600,
    ]);
    expect(generatedRules.webhookDelivery).toEqual({ timeoutSeconds: 15, signatureToleranceSeconds: 5 * 60 });
    expect(generatedRules.passwordLength).toEqual({ min: 12, max: 128 });
    expect(generatedRules.searchLength).toEqual({ max: 64 });
    expect(generatedRules.roles).toEqual(["owner", "admin", "developer", "finance", "viewer"]);
  });
});

describe("who may do what in the dashboard", () => {
  const dashboardDoc = load("dashboard-openapi.yaml") as unknown as {
    paths: Record<string, Record<string, { operationId: string; "x-roles"?: string[] }>>;
  };
  const operations = Object.values(dashboardDoc.paths).flatMap((item) => Object.values(item));

  test("when canCall is asked for every operation and role, then it answers the operation's x-roles", () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      for (const role of generatedRules.roles) {
        expect(canCall(op.operationId as OperationId, role), `${op.operationId} ${role}`).toBe(
          (op["x-roles"] ?? []).includes(role),
        );
      }
    }
  });

  test("when an operation names a role the document's Role enumeration lacks, then the generation stops", () => {
    const doc = structuredClone(load("dashboard-openapi.yaml")) as unknown as Required<OpenApiDocument>;
    expect(readOperations(doc, false, true).length).toBe(operations.length);

    const role = doc.components.schemas?.Role;
    if (!role) throw new Error("no Role schema");
    role.enum = (role.enum ?? []).filter((r) => r !== "viewer");

    expect(() => readOperations(doc, false, true)).toThrow(/has no valid x-roles/);
  });
});

describe("the sentences partners read and the bounds beside them", () => {
  test("when an error body is read, then it says how many field errors it lists", () => {
    expect(said(schema(publicDoc, "ErrorBody").properties?.errors)).toContain(`the first ${maxFieldErrors}`);
  });

  test.each([
    { name: "ChargeAmountCents", min: amountLimits.minChargeCents },
    { name: "WithdrawalAmountCents", min: amountLimits.minWithdrawalCents },
    { name: "AmountCents", min: 1 },
  ])("when $name is read, then it ends at the largest amount and its description says its bounds", ({ name, min }) => {
    const s = schema(publicDoc, name);

    expect(s).toMatchObject({ type: "integer", minimum: min, maximum: amountLimits.maxCents });
    expect(s.format).toBeUndefined();
    expect(s.description).toContain(String(min));
    expect(s.description).toContain(spaced(amountLimits.maxCents));
  });

  test("when a refund is read, then its amount is AmountCents and the reason and window are said as bounded", () => {
    const body = schema(publicDoc, "CreateRefundRequest");
    const create = (publicDoc.paths["/api/v1/transactions/{id}/refunds"]?.post ?? {}) as { description?: string };

    expect(body.properties?.amountCents?.allOf).toEqual([{ $ref: "#/components/schemas/AmountCents" }]);
    expect(said(body.properties?.reason)).toContain(
      `${refundLimits.reasonMin} to ${refundLimits.reasonMax} characters`,
    );
    expect(schema(publicDoc, "Refund").properties?.reason?.maxLength).toBe(refundLimits.reasonMax);
    expect(said(create)).toContain(`${refundLimits.windowDays} days have passed since \`paidAt\``);
  });

  test.each([
    { body: "CreatePixChargeRequest", amount: "ChargeAmountCents" },
    { body: "CreatePaymentLinkRequest", amount: "ChargeAmountCents" },
    { body: "CreateWithdrawalRequest", amount: "WithdrawalAmountCents" },
  ])("when $body is read, then amountCents refers to $amount with no bound beside the reference", (c) => {
    const property = schema(publicDoc, c.body).properties?.amountCents;

    expect(property?.allOf).toEqual([{ $ref: `#/components/schemas/${c.amount}` }]);
    expect(property).not.toHaveProperty("minimum");
    expect(property).not.toHaveProperty("maximum");
  });

  test("when a description is read, then charges and payment links take ChargeDescription and links show no longer one", () => {
    for (const body of ["CreatePixChargeRequest", "CreatePaymentLinkRequest"]) {
      expect(schema(publicDoc, body).properties?.description?.allOf, body).toEqual([
        { $ref: "#/components/schemas/ChargeDescription" },
      ]);
    }
    expect(said(schema(publicDoc, "ChargeDescription"))).toContain(
      `${descriptionLength.min} to ${descriptionLength.max} characters`,
    );
    expect(schema(publicDoc, "PaymentLink").properties?.description?.maxLength).toBe(descriptionLength.max);
  });

  test("when a person's name and e-mail are read, then every taker refers to the named bounds and says them", () => {
    const takers = ["ChargeCustomerInput", "UpsertCustomerRequest", "UpdateCustomerRequest"];

    expect(said(schema(publicDoc, "PersonName"))).toContain(
      `${personLimits.nameMin} to ${personLimits.nameMax} characters`,
    );
    expect(said(schema(publicDoc, "EmailAddress"))).toContain(`at most ${personLimits.emailMax} characters`);
    for (const name of takers) {
      const { properties } = schema(publicDoc, name);
      expect(properties?.name?.allOf, name).toEqual([{ $ref: "#/components/schemas/PersonName" }]);
      expect(properties?.email?.allOf, name).toEqual([{ $ref: "#/components/schemas/EmailAddress" }]);
    }
    expect(schema(publicDoc, "Customer").properties).toMatchObject({
      name: { maxLength: personLimits.nameMax },
      email: { maxLength: personLimits.emailMax },
    });
  });

  test("when a payment link's maxPayments is read, then the link shows what the request takes and says it", () => {
    const request = schema(publicDoc, "CreatePaymentLinkRequest").properties?.maxPayments;

    expect(schema(publicDoc, "PaymentLink").properties?.maxPayments).toMatchObject({
      minimum: maxPaymentsRange.min,
      maximum: maxPaymentsRange.max,
    });
    expect(said(request)).toContain(`${maxPaymentsRange.min} to ${maxPaymentsRange.max} payments`);
  });

  test("when the page size parameter is read, then its description says its bounds and default", () => {
    const limit = Object.values(publicDoc.components.parameters).find((p) => p.name === "limit");

    expect(said(limit)).toContain(`${pageLimit.min} to ${pageLimit.max}. Default ${pageLimit.default}`);
  });

  test("when Metadata and the idempotency key are read, then their sentences say the generated numbers", () => {
    const metadata = said(schema(publicDoc, "Metadata"));
    const idempotency = Object.values(publicDoc.components.parameters).find((p) => p.name === "idempotency-key");

    expect(metadata).toContain(`At most ${metadataLimits.maxKeys} keys`);
    expect(metadata).toContain(`key at most ${metadataLimits.maxKeyLength} characters`);
    expect(metadata).toContain(`${metadataLimits.maxBytes / 1024} KiB`);
    expect(said(idempotency)).toContain(`within ${idempotencyWindowSeconds / 3600} hours`);
  });

  test("when a webhook secret's rotation is read, then it says how long the old secret keeps signing", () => {
    const rotate = adminDoc.paths["/admin/v1/webhook-endpoints/{id}/rotate-secret"]?.post as { description?: string };

    expect(said(rotate)).toContain(`beside the new, for ${secretOverlapSeconds / 3600} hours`);
  });

  test("when the operator's plan, account, key and tag bounds are read, then they agree with the rules and say them", () => {
    const plan = schema(adminDoc, "Plan").properties;
    const notes = schema(adminDoc, "SetCustomerNotesRequest").properties?.tags;

    expect(schema(adminDoc, "ChargeFeeCents")).toMatchObject({ minimum: 0, maximum: amountLimits.maxCents });
    expect(said(schema(adminDoc, "FeeBasisPoints"))).toContain(`0 to ${planLimits.maxChargeFeeBps}`);
    expect(said(schema(adminDoc, "WithdrawFeeCents"))).toContain(
      `0 to ${planLimits.maxWithdrawFeeCents}, below the smallest withdrawal (${amountLimits.minWithdrawalCents})`,
    );
    expect(said(plan?.chargeFeeCents)).toContain(`Default ${defaultPlan.chargeFeeCents}.`);
    expect(said(plan?.chargeFeeBps)).toContain(`Default ${defaultPlan.chargeFeeBps}.`);
    expect(said(plan?.withdrawFeeCents)).toContain(`Default ${defaultPlan.withdrawFeeCents}.`);
    expect(said(schema(adminDoc, "ReleasePeriodDays"))).toContain(
      `${releasePeriodDays.min} to ${releasePeriodDays.max}`,
    );
    expect(said(schema(adminDoc, "CreateAccountRequest").properties?.releasePeriodDays)).toContain(
      `Default ${releasePeriodDays.default}.`,
    );
    for (const body of ["CreateApiKeyRequest", "UpdateApiKeyRequest"]) {
      expect(schema(adminDoc, body).properties?.dailyWithdrawLimitCents, body).toMatchObject({
        minimum: amountLimits.minWithdrawalCents,
        maximum: amountLimits.maxCents,
      });
    }
    expect(said(notes)).toContain(
      `At most ${customerTagLength.maxCount} tags, each ${customerTagLength.min} to ${customerTagLength.max} characters`,
    );
    expect(schema(adminDoc, "CustomerNotes").properties?.tags).toMatchObject({ maxItems: customerTagLength.maxCount });
  });

  test("when an address is read, then zipCode is 8 digits, state one of the 27 UFs, and the two shapes agree", () => {
    const addresses = [...walk(publicDoc.components, "#/components")].filter(([, s]) => s.properties?.zipCode);

    expect(brazilianStates).toHaveLength(27);
    expect(addresses.map(([where]) => where)).toEqual([
      "#/components/schemas/AddressInput",
      "#/components/schemas/Customer/properties/address",
    ]);
    for (const [where, address] of addresses) {
      const { zipCode, state } = address.properties ?? {};
      const zip = new RegExp(zipCode?.pattern ?? "(?!)");

      expect(state?.pattern, where).toBe(`^(${brazilianStates.join("|")})$`);
      expect(["01310100", "01310-100"].filter((z) => zip.test(z))).toEqual(["01310100", "01310-100"]);
      expect(["0131010", "0131-0100", "1".repeat(5000), "01310 100"].filter((z) => zip.test(z))).toEqual([]);
      for (const field of ["zipCode", "street", "number", "complement", "district", "city"] as const) {
        expect(address.properties?.[field]?.maxLength, `${where} ${field}`).toBe(checkoutFieldLengths[field]);
      }
    }
  });
});

describe.each(everyDocument)("the document $name", ({ doc }) => {
  test("when any schema is read, then no bound sits beside an allOf reference (generators drop it)", () => {
    const offenders = [...walk(doc, "#")]
      .filter(([, s]) => s.allOf && ["minimum", "maximum", "minLength", "maxLength", "pattern"].some((k) => k in s))
      .map(([where]) => where);

    expect(offenders).toEqual([]);
  });

  test("when any amount in cents is read, then it is a plain integer, not int64", () => {
    const offenders = [...walk(doc, "#")]
      .filter(([where, s]) => /Cents$/.test(where) && s.format === "int64")
      .map(([where]) => where);

    expect(offenders).toEqual([]);
  });

  test("when a request body takes an amount in cents, then it cannot exceed the largest amount", () => {
    const offenders: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const body = op.requestBody?.content?.["application/json"]?.schema;
        if (!body) continue;
        for (const [field, property] of Object.entries(resolveSchema(doc, body).properties ?? {})) {
          const bound = resolveSchema(doc, property).maximum;
          if (/Cents$/.test(field) && (bound === undefined || bound > amountLimits.maxCents)) {
            offenders.push(`${method.toUpperCase()} ${path} ${field}`);
          }
        }
      }
    }

    expect(offenders).toEqual([]);
  });
});
