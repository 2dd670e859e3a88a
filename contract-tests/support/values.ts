import fc from "fast-check";
import { type ApiDocument, type Schema, schemaName } from "./document.js";

// Values the document's schemas accept, and the server too: the valid half of the request
// generator (./requests.ts). The schema alone says lengths, bounds, patterns and formats; a few
// places also need a value only the server's rules make valid (check digits, a future instant),
// written once below.

/** The amount of every charge the differential suite creates: what a refund or a dispute of it can take. */
export const freshChargeCents = 8990;

/** The fixed amount of the recurrences whose cycles the differential suite charges. */
export const recurringChargeCents = 4990;

/**
 * The due date a generated cycle charge asks for: a stand-in the differential suite replaces with
 * the first cycle of the fresh recurrence it charges (a date only the server's clock decides).
 */
export const freshCycleDatePlaceholder = "2099-12-31";

/** Calendar dates every reference server sees as future (2030 to 2098). */
const futureDate = fc
  .integer({ min: Date.UTC(2030, 0, 1) / 86_400_000, max: Date.UTC(2098, 11, 31) / 86_400_000 })
  .map((day) => new Date(day * 86_400_000).toISOString().slice(0, 10));

const amountCents = fc.integer({ min: 500, max: 999_999_999_999 });
const attemptCodes = ["AM04", "AB10", "AC05", "AC06", "AM02", "AM09", "DENC", "NITX", "UDEI"] as const;

/**
 * A recurrence's terms drawn together, as the server takes them: a fixed amount (maybe charged
 * automatically) or a variable one (maybe with a minimum), an immediate payment with journey 3
 * only, a last date not before the first.
 */
const recurrenceTerms = fc
  .record({
    journey3: fc.boolean(),
    fixed: fc.boolean(),
    automatic: fc.boolean(),
    amount: amountCents,
    minimum: fc.option(amountCents, { nil: undefined }),
    initial: amountCents,
    firstDate: futureDate,
    days: fc.option(fc.integer({ min: 0, max: 3650 }), { nil: undefined }),
  })
  .map((t) => ({
    journey: t.journey3 ? "JOURNEY_3" : "JOURNEY_2",
    ...(t.journey3 ? { initialPayment: { amountCents: t.initial } } : {}),
    ...(t.fixed ? { amountCents: t.amount, automaticCharges: t.automatic } : {}),
    ...(!t.fixed && t.minimum !== undefined ? { minimumAmountCents: t.minimum } : {}),
    firstDate: t.firstDate,
    ...(t.days === undefined
      ? {}
      : {
          lastDate: new Date(Date.parse(`${t.firstDate}T00:00:00Z`) + t.days * 86_400_000).toISOString().slice(0, 10),
        }),
  }));

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n });

function cpfCheck(base: number[]): number[] {
  const digit = (ds: number[]) => {
    const sum = ds.reduce((s, d, i) => s + d * (ds.length + 1 - i), 0);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  const first = digit(base);
  return [...base, first, digit([...base, first])];
}
function cnpjCheck(base: number[]): number[] {
  const digit = (ds: number[]) => {
    const weights = ds.map((_, i) => ((ds.length - 1 - i) % 8) + 2);
    const r = ds.reduce((s, d, i) => s + d * (weights[i] as number), 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const first = digit(base);
  return [...base, first, digit([...base, first])];
}
/** A CPF whose check digits hold (not all digits equal). */
export const validCpf = digits(9)
  .filter((d) => new Set(d).size > 1)
  .map((d) => cpfCheck(d).join(""));
/** A numeric CNPJ whose check digits hold. */
const validCnpj = digits(12)
  .filter((d) => new Set(d).size > 1)
  .map((d) => cnpjCheck(d).join(""));
const documentPair = fc.oneof(
  validCpf.map((document) => ({ documentType: "CPF", document })),
  validCnpj.map((document) => ({ documentType: "CNPJ", document })),
);
const punctuated = (d: string) =>
  d.length === 11
    ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
    : `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/), fc.constantFrom("example.com", "loja.example.com.br"))
  .map(([local, domain]) => `${local}@${domain}`);
const pixKeyPair = fc.oneof(
  validCpf.map((pixKey) => ({ pixKeyType: "CPF", pixKey })),
  validCnpj.map((pixKey) => ({ pixKeyType: "CNPJ", pixKey })),
  fc.stringMatching(/^\+55[1-9]{2}9[0-9]{8}$/).map((pixKey) => ({ pixKeyType: "PHONE", pixKey })),
  email.map((pixKey) => ({ pixKeyType: "EMAIL", pixKey })),
  fc.uuid({ version: 4 }).map((pixKey) => ({ pixKeyType: "EVP", pixKey })),
);
/**
 * The terms of a charge with a due date the server accepts (issue 38): due in 2030 (ahead of the
 * reference servers' clock, within its 5 years), a fine, interest, a rebate and discount dates that
 * never reach the amount (at least R$ 100,00; every deduction at most R$ 10,00 or 10 %).
 */
const dueDateTerms = fc
  .record(
    {
      amountCents: fc.integer({ min: 10_000, max: 10_000_000 }),
      day: fc.integer({ min: 10, max: 360 }),
      daysPayableAfterDue: fc.integer({ min: 0, max: 365 }),
      fine: fc.oneof(
        fc.integer({ min: 1, max: 1000 }).map((amountCents) => ({ mode: "FIXED", amountCents })),
        fc.integer({ min: 1, max: 1000 }).map((rateBps) => ({ mode: "PERCENTAGE", rateBps })),
      ),
      interest: fc.oneof(
        fc.integer({ min: 1, max: 100 }).map((amountCents) => ({ mode: "AMOUNT_PER_CALENDAR_DAY", amountCents })),
        fc
          .tuple(
            fc.constantFrom("PERCENTAGE_PER_MONTH_CALENDAR_DAYS", "PERCENTAGE_PER_YEAR_BUSINESS_DAYS"),
            fc.integer({ min: 1, max: 1000 }),
          )
          .map(([mode, rateBps]) => ({ mode, rateBps })),
      ),
      rebate: fc.integer({ min: 1, max: 1000 }).map((amountCents) => ({ mode: "FIXED", amountCents })),
      discount: fc.integer({ min: 1, max: 1000 }),
    },
    { requiredKeys: ["amountCents", "day"] },
  )
  .map(({ day, discount, ...terms }) => {
    const dueDate = new Date(Date.UTC(2030, 0, day)).toISOString().slice(0, 10);
    const discountDate = new Date(Date.UTC(2030, 0, day - 5)).toISOString().slice(0, 10);
    return {
      ...terms,
      dueDate,
      ...(discount === undefined
        ? {}
        : { discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: discountDate, amountCents: discount }] } }),
    };
  });

/** Instants the reference servers (clock in 2026) and anyone else see as future. */
export const futureInstant = fc
  .integer({ min: Date.UTC(2030, 0, 1) / 1000, max: Date.UTC(2099, 0, 1) / 1000 })
  .map((s) => new Date(s * 1000).toISOString());

/** Instants everyone sees as past. */
export const pastInstant = fc
  .integer({ min: Date.UTC(2000, 0, 1) / 1000, max: Date.UTC(2020, 0, 1) / 1000 })
  .map((s) => new Date(s * 1000).toISOString());

/**
 * The values a schema alone cannot make valid for the server: a document and its type whose check
 * digits hold, a Pix key in the form of its type, an instant in the future, an amount the charge
 * to refund or contest holds. Keyed by the property's place, `Schema.property`.
 */
const semanticValues: Record<string, fc.Arbitrary<unknown>> = {
  "UpsertCustomerRequest.document": fc.oneof(validCpf, validCnpj, validCpf.map(punctuated), validCnpj.map(punctuated)),
  "CreatePixChargeRequest.expiresAt": futureInstant,
  "CreatePaymentLinkRequest.expiresAt": futureInstant,
  "CreateRecurrenceRequest.expiresAt": futureInstant,
  "CreateRecurringChargeRequest.dueDate": fc.constant(freshCycleDatePlaceholder),
  "CreateRecurringChargeRequest.amountCents": fc.constant(recurringChargeCents),
  // At most what a fresh charge of the suite still holds (the setup's charges are of one amount).
  "CreateRefundRequest.amountCents": fc.integer({ min: 1, max: freshChargeCents }),
  "SimulateDisputeRequest.amountCents": fc.integer({ min: 1, max: freshChargeCents }),
  // The sandbox's magic reason: the refund ends FAILED (still 201), a body the proxy checks too.
  "CreateRefundRequest.reason": fc.oneof(fc.constant("sandbox:falha"), fc.string({ minLength: 3, maxLength: 140 })),
  "CreatePaymentLinkRequest.returnUrl": fc.oneof(
    fc.constant(null),
    fc.stringMatching(/^[a-z]{3,12}$/).map((host) => `https://${host}.example.com/obrigado`),
  ),
};
/** Properties drawn together (a document and its type; a Pix key and its type). */
const pairedValues: Record<string, { keys: string[]; arbitrary: fc.Arbitrary<Record<string, unknown>> }> = {
  ChargeCustomerInput: { keys: ["documentType", "document"], arbitrary: documentPair },
  CreateWithdrawalRequest: { keys: ["pixKeyType", "pixKey"], arbitrary: pixKeyPair },
  CreateRecurrenceRequest: {
    keys: [
      "journey",
      "initialPayment",
      "amountCents",
      "minimumAmountCents",
      "automaticCharges",
      "firstDate",
      "lastDate",
    ],
    arbitrary: recurrenceTerms,
  },
  CreateDueDateChargeRequest: {
    keys: ["amountCents", "dueDate", "daysPayableAfterDue", "fine", "interest", "rebate", "discount"],
    arbitrary: dueDateTerms,
  },
  SettleRecurringAttemptRequest: {
    keys: ["outcome", "reasonCode"],
    arbitrary: fc.oneof(
      fc.constant({ outcome: "PAID" }),
      fc.constantFrom(...attemptCodes).map((reasonCode) => ({ outcome: "FAILED", reasonCode })),
    ),
  },
};

const bigInteger = (min: number, max: number) =>
  fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map((n) => Number(n));

/**
 * A value valid against `schema` of `document` (and, for the semantic places above, valid for the server).
 * `place` is where it sits (`CreatePixChargeRequest.expiresAt`), for the semantic values.
 */
export function validValue(document: ApiDocument, schema: Schema, place = "", depth = 0): fc.Arbitrary<unknown> {
  const semantic = semanticValues[place];
  if (semantic) return semantic;
  const name = schemaName(schema) ?? place;
  const s = document.resolveSchema(schema);
  const base = baseValue(document, s, name, depth);
  return s.nullable ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: base }) : base;
}

/** Integer bounds with exclusive bounds made inclusive. */
function integerBounds(s: Schema): { min: number; max: number } {
  const min = s.minimum ?? 0;
  const max = s.maximum ?? 1_000_000;
  return { min: s.exclusiveMinimum ? min + 1 : min, max: s.exclusiveMaximum ? max - 1 : max };
}

/** A path segment, query or fragment of RFC 3986: its characters, or any byte percent-encoded. */
const uriPart = (extra: string, max: number) =>
  fc.stringMatching(new RegExp(`^([A-Za-z0-9._~!$&'()*+,;=:@${extra}-]|%[0-9A-F]{2}){0,${max}}$`));

/**
 * An https URL of RFC 3986: a host (`fc.webAuthority`), up to four path segments, a query and a
 * fragment, each part with percent-encoded bytes. Not `fc.webUrl`: building it takes 1.3 s of CPU
 * (its percent-encoding table covers every code point), in every test worker that draws a `uri`.
 */
const httpsUrl = fc
  .tuple(
    fc.webAuthority(),
    fc.array(uriPart("", 12), { maxLength: 4 }),
    fc.option(uriPart("/?", 20), { nil: undefined }),
    fc.option(uriPart("/?", 12), { nil: undefined }),
  )
  .map(
    ([authority, segments, query, fragment]) =>
      `https://${authority}${segments.map((segment) => `/${segment}`).join("")}` +
      `${query === undefined ? "" : `?${query}`}${fragment === undefined ? "" : `#${fragment}`}`,
  );

function baseValue(document: ApiDocument, s: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => validValue(document, a, name, depth + 1)));
  switch (s.type) {
    case "object": {
      if (!s.properties) {
        // Metadata: string keys of at most 40 characters, JSON values, at most `maxProperties`.
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: Math.min(s.maxProperties ?? 10, 10),
        });
      }
      if (depth > 6) return fc.constant({});
      const paired = pairedValues[name];
      const entries = Object.entries(s.properties).filter(([key]) => !paired?.keys.includes(key));
      const record = fc.record(
        Object.fromEntries(
          entries.map(([key, prop]) => [key, validValue(document, prop, `${name}.${key}`, depth + 1)]),
        ),
        { requiredKeys: entries.map(([key]) => key).filter((key) => s.required?.includes(key)) },
      );
      return paired ? fc.tuple(record, paired.arbitrary).map(([r, p]) => ({ ...r, ...p })) : record;
    }
    case "array":
      return fc.array(validValue(document, s.items ?? {}, `${name}[]`, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)),
      });
    case "integer": {
      const { min, max } = integerBounds(s);
      return bigInteger(min, max);
    }
    case "number":
      return fc
        .double({ min: s.minimum ?? 0, max: s.maximum ?? 1e6, noNaN: true })
        .filter((n) => !(s.exclusiveMinimum && n === s.minimum) && !(s.exclusiveMaximum && n === s.maximum));
    case "boolean":
      return fc.boolean();
    case "string": {
      const minLength = s.minLength ?? 0;
      const maxLength = s.maxLength ?? 40;
      if (s.format === "email") return email.filter((e) => e.length <= maxLength);
      if (s.format === "date-time") return futureInstant;
      if (s.format === "uri") return httpsUrl.filter((u) => u.length <= maxLength);
      if (s.pattern) {
        // `^[class]+$` with lengths: draw the length from the schema, not from the regex.
        const repeated = /^\^(\[[^\]]+\])\+\$$/.exec(s.pattern);
        const pattern = repeated ? `^${repeated[1]}{${minLength},${maxLength}}$` : s.pattern;
        return fc.stringMatching(new RegExp(pattern)).filter((v) => v.length >= minLength && v.length <= maxLength);
      }
      return fc.string({ minLength, maxLength: Math.min(maxLength, 60) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}
