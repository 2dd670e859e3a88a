import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { brazilianStates } from "../src/domain/policy.js";
import {
  amountLimits,
  customerTagLength,
  defaultPlan,
  descriptionLength,
  maxFieldErrors,
  maxPaymentsRange,
  personLimits,
  metadataLimits,
  pageLimit,
  planLimits,
  refundLimits,
  releasePeriodDays,
} from "../src/domain/policy.js";

// Every number of the rules is written once in the spec and once in `domain/policy.ts`. These
// tests read the published documents (what the validator, the mock and generated clients see) and
// fail when the two disagree, or when a bound sits where some generators drop it.

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
  components: { schemas: Record<string, Schema>; parameters: Record<string, { name: string; schema: Schema }> };
};

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const load = (name: string) => parse(readFileSync(join(root, "generated", name), "utf8")) as Doc;
const publicDoc = load("openapi.yaml");
const adminDoc = load("admin-openapi.yaml");

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

describe("the spec's bounds and domain/policy.ts", () => {
  test("when an error body is read, then it lists at most the policy's number of field errors", () => {
    const errors = schema(publicDoc, "ErrorBody").properties?.errors as Schema & { maxItems?: number };
    expect(errors.maxItems).toBe(maxFieldErrors);
  });

  test.each([
    { name: "ChargeAmountCents", min: amountLimits.minChargeCents },
    { name: "WithdrawalAmountCents", min: amountLimits.minWithdrawalCents },
    { name: "AmountCents", min: 1 },
  ])("when $name is read, then its bounds are the policy's and its description says them", ({ name, min }) => {
    const s = schema(publicDoc, name);

    expect(s).toMatchObject({ type: "integer", minimum: min, maximum: amountLimits.maxCents });
    expect(s.format).toBeUndefined();
    expect(s.description).toContain(String(min));
    expect(s.description).toContain(spaced(amountLimits.maxCents));
  });

  test("when a refund request is read, then its amount is AmountCents, its reason has the policy's length and the window is the policy's", () => {
    const body = schema(publicDoc, "CreateRefundRequest");
    const reason = resolveSchema(publicDoc, body.properties?.reason ?? {});
    const create = (publicDoc.paths["/api/v1/transactions/{id}/refunds"]?.post ?? {}) as { description?: string };

    expect(body.properties?.amountCents?.allOf).toEqual([{ $ref: "#/components/schemas/AmountCents" }]);
    expect(reason).toMatchObject({ minLength: refundLimits.reasonMin, maxLength: refundLimits.reasonMax });
    expect(reason.description?.replace(/\s+/g, " ")).toContain(
      `${refundLimits.reasonMin} to ${refundLimits.reasonMax} characters`,
    );
    expect(create.description?.replace(/\s+/g, " ")).toContain(
      `${refundLimits.windowDays} days have passed since \`paidAt\``,
    );
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

  test.each([{ body: "CreatePixChargeRequest" }, { body: "CreatePaymentLinkRequest" }])(
    "when $body is read, then description has the policy's length",
    ({ body }) => {
      const property = resolveSchema(publicDoc, schema(publicDoc, body).properties?.description ?? {});

      expect(property).toMatchObject({ minLength: descriptionLength.min, maxLength: descriptionLength.max });
    },
  );

  test("when a person's name and e-mail are read, then their bounds are the policy's wherever they are taken", () => {
    const takers = ["ChargeCustomerInput", "UpsertCustomerRequest", "UpdateCustomerRequest"];

    expect(schema(publicDoc, "PersonName")).toMatchObject({
      minLength: personLimits.nameMin,
      maxLength: personLimits.nameMax,
    });
    expect(schema(publicDoc, "EmailAddress")).toMatchObject({ format: "email", maxLength: personLimits.emailMax });
    for (const name of takers) {
      const { properties } = schema(publicDoc, name);
      expect(properties?.name?.allOf, name).toEqual([{ $ref: "#/components/schemas/PersonName" }]);
      expect(properties?.email?.allOf, name).toEqual([{ $ref: "#/components/schemas/EmailAddress" }]);
    }
  });

  test("when a payment link's maxPayments is read, then its bounds are the policy's", () => {
    const property = schema(publicDoc, "CreatePaymentLinkRequest").properties?.maxPayments;

    expect(property).toMatchObject({ minimum: maxPaymentsRange.min, maximum: maxPaymentsRange.max });
  });

  test("when the page size parameter is read, then its bounds and default are the policy's", () => {
    const limit = Object.values(publicDoc.components.parameters).find((p) => p.name === "limit");

    expect(limit?.schema).toMatchObject({ minimum: pageLimit.min, maximum: pageLimit.max, default: pageLimit.default });
    expect(limit && "description" in limit ? String(limit.description) : "").toContain(
      `${pageLimit.min} to ${pageLimit.max}. Default ${pageLimit.default}`,
    );
  });

  test("when Metadata is read, then it declares the key count and states the key length and size", () => {
    const s = schema(publicDoc, "Metadata");

    expect(s.maxProperties).toBe(metadataLimits.maxKeys);
    expect(s.description).toContain(`${metadataLimits.maxKeys} keys`);
    expect(s.description).toContain(`key at most ${metadataLimits.maxKeyLength} characters`);
    expect(s.description).toContain(`${metadataLimits.maxBytes / 1024} KiB`);
  });

  test("when the operator's plan and key bounds are read, then they are the policy's", () => {
    const apiKey = schema(adminDoc, "CreateApiKeyRequest").properties?.dailyWithdrawLimitCents;

    expect(schema(adminDoc, "ChargeFeeCents")).toMatchObject({ minimum: 0, maximum: amountLimits.maxCents });
    expect(schema(adminDoc, "FeeBasisPoints")).toMatchObject({ minimum: 0, maximum: planLimits.maxChargeFeeBps });
    expect(schema(adminDoc, "WithdrawFeeCents")).toMatchObject({
      minimum: 0,
      maximum: planLimits.maxWithdrawFeeCents,
    });
    expect(schema(adminDoc, "ReleasePeriodDays")).toMatchObject({
      minimum: releasePeriodDays.min,
      maximum: releasePeriodDays.max,
    });
    expect(schema(adminDoc, "CustomerTag")).toMatchObject({
      minLength: customerTagLength.min,
      maxLength: customerTagLength.max,
    });
    expect(schema(adminDoc, "SetCustomerNotesRequest").properties?.tags).toMatchObject({
      maxItems: customerTagLength.maxCount,
    });
    expect(apiKey).toMatchObject({ minimum: amountLimits.minWithdrawalCents, maximum: amountLimits.maxCents });
    expect(schema(adminDoc, "Plan").properties?.chargeFeeCents?.description).toContain(
      `Default ${defaultPlan.chargeFeeCents}`,
    );
    expect(schema(adminDoc, "Plan").properties?.withdrawFeeCents?.description).toContain(
      `Default ${defaultPlan.withdrawFeeCents}`,
    );
  });

  test("when an address is read, then zipCode is 8 digits and state one of the checkout's 27 UFs", () => {
    const addresses = [...walk(publicDoc.components, "#/components")].filter(([, s]) => s.properties?.zipCode);

    expect(addresses.map(([where]) => where)).toEqual([
      "#/components/schemas/AddressInput",
      "#/components/schemas/Customer/properties/address",
    ]);
    for (const [, address] of addresses) {
      const { zipCode, state } = address.properties ?? {};
      const zip = new RegExp(zipCode?.pattern ?? "(?!)");

      expect(state?.pattern).toBe(`^(${brazilianStates.join("|")})$`);
      expect(["01310100", "01310-100"].filter((z) => zip.test(z))).toEqual(["01310100", "01310-100"]);
      expect(["0131010", "0131-0100", "1".repeat(5000), "01310 100"].filter((z) => zip.test(z))).toEqual([]);
    }
  });
});

describe.each([
  { name: "public", doc: publicDoc },
  { name: "operator", doc: adminDoc },
])("the $name document", ({ doc }) => {
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
