import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  type AmountDue,
  addDays,
  amountDue,
  checkDueDateTerms,
  type DiscountMode,
  type DueDateTermsInput,
  discountModes,
  type InterestMode,
  interestModes,
  percentToRateBps,
  rateBpsToPercent,
} from "../../src/domain/payments/index.js";

// The amount due of a charge with a due date on a payment date (record 0052): the standard's
// worked examples of `validadeAposVencimento`, a table computed by hand, and properties.

/** Terms checked as of `today` (old dates for the standard's 2020–2021 examples). */
const terms = (input: DueDateTermsInput, today = "2020-01-01") => checkDueDateTerms(input, today);

const breakdown = (due: AmountDue) => ({
  rebate: due.rebateCents,
  discount: due.discountCents,
  fine: due.fineCents,
  interest: due.interestCents,
  final: due.finalCents,
});

describe("the standard's Exemplos A–G (calendario.validadeAposVencimento)", () => {
  // Each: the due date, the days payable after it, the payment dates the standard accepts, and the
  // first one it refuses. A fine of 2 % and interest of 1 % a month ride along: they start only after
  // the due date in fact (the "(*)" of the examples), and the dates before it owe the original amount.
  test.each([
    {
      name: "A",
      dueDate: "2020-10-20", // Tuesday
      days: 4,
      dueInFact: "2020-10-20",
      accepted: ["2020-10-20", "2020-10-21", "2020-10-22", "2020-10-23", "2020-10-24", "2020-10-25", "2020-10-26"],
      refused: "2020-10-27",
    },
    {
      name: "B",
      dueDate: "2020-12-25", // Friday, Christmas
      days: 0,
      dueInFact: "2020-12-28",
      accepted: ["2020-12-25", "2020-12-26", "2020-12-27", "2020-12-28"],
      refused: "2020-12-29",
    },
    {
      name: "C",
      dueDate: "2020-12-25",
      days: 1,
      dueInFact: "2020-12-28",
      accepted: ["2020-12-25", "2020-12-26", "2020-12-27", "2020-12-28", "2020-12-29"],
      refused: "2020-12-30",
    },
    {
      name: "D",
      dueDate: "2020-12-25",
      days: 3,
      dueInFact: "2020-12-28",
      accepted: ["2020-12-28", "2020-12-29", "2020-12-30", "2020-12-31"],
      refused: "2021-01-01",
    },
    {
      name: "E",
      dueDate: "2020-12-25",
      days: 4,
      dueInFact: "2020-12-28",
      accepted: ["2020-12-31", "2021-01-01", "2021-01-02", "2021-01-03", "2021-01-04"],
      refused: "2021-01-05",
    },
    {
      name: "F",
      dueDate: "2021-08-27", // Friday
      days: 5,
      dueInFact: "2021-08-27",
      accepted: ["2021-08-27", "2021-08-28", "2021-08-29", "2021-08-30", "2021-08-31", "2021-09-01"],
      refused: "2021-09-02",
    },
    {
      name: "G",
      dueDate: "2021-08-28", // Saturday
      days: 5,
      dueInFact: "2021-08-30",
      accepted: ["2021-08-28", "2021-08-29", "2021-08-30", "2021-08-31", "2021-09-03", "2021-09-04", "2021-09-06"],
      refused: "2021-09-07",
    },
  ])(
    "when Exemplo $name is paid on each day it lists, then those up to its last day are accepted, at the original amount until the due date in fact, and the next is refused",
    ({ dueDate, days, dueInFact, accepted, refused }) => {
      const charge = terms({
        amountCents: 10_000,
        dueDate,
        daysPayableAfterDue: days,
        fine: { mode: "PERCENTAGE", rateBps: 200 },
        interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      });
      for (const date of accepted) {
        const due = amountDue(charge, date);
        expect(due.payable, date).toBe(true);
        expect(due.dueDate).toBe(dueInFact);
        if (date <= dueInFact) expect(due.finalCents, date).toBe(10_000);
        // Late: 2 % of R$ 100,00 = 200 once, plus 10.000 × 1 % / 30 per calendar day after the due date in fact.
        else expect(due.fineCents, date).toBe(200);
      }
      expect(amountDue(charge, refused).payable).toBe(false);
      expect(amountDue(charge, refused).lastPayableDate).toBe(accepted.at(-1));
    },
  );

  test("when Exemplo C's charge (due Christmas 2020, a Friday) is paid the day after the due date in fact, then one day of interest counts from Monday 28, not from the 25th", () => {
    const charge = terms({
      amountCents: 10_000,
      dueDate: "2020-12-25",
      daysPayableAfterDue: 1,
      fine: { mode: "FIXED", amountCents: 150 },
      interest: { mode: "AMOUNT_PER_CALENDAR_DAY", amountCents: 7 },
      discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2020-12-25", amountCents: 500 }] },
    });
    // On Monday 28 (the due date in fact) the discount "until the 25th" moved with it: 10.000 − 500.
    expect(breakdown(amountDue(charge, "2020-12-28"))).toEqual({
      rebate: 0,
      discount: 500,
      fine: 0,
      interest: 0,
      final: 9_500,
    });
    // On Tuesday 29: fine 150, interest 1 day × 7 = 7: 10.000 + 150 + 7.
    expect(breakdown(amountDue(charge, "2020-12-29"))).toEqual({
      rebate: 0,
      discount: 0,
      fine: 150,
      interest: 7,
      final: 10_157,
    });
  });
});

describe("a table computed by hand", () => {
  // The acceptance charge: R$ 250,00 due Friday 2026-12-04, fine 2 %, interest 1 % a month
  // (calendar days), R$ 10,00 off until Wednesday 2026-12-02.
  const acceptance = terms(
    {
      amountCents: 25_000,
      dueDate: "2026-12-04",
      fine: { mode: "PERCENTAGE", rateBps: 200 },
      interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2026-12-02", amountCents: 1_000 }] },
    },
    "2026-11-28",
  );
  // The same due on Sunday 2026-12-06: due in fact Monday 7.
  const sunday = terms({ ...acceptance, discount: undefined, dueDate: "2026-12-06" }, "2026-11-28");

  test.each([
    // Tuesday, before the discount's Wednesday: 25.000 − 1.000.
    { charge: acceptance, date: "2026-12-01", rebate: 0, discount: 1_000, fine: 0, interest: 0, final: 24_000 },
    { charge: acceptance, date: "2026-12-02", rebate: 0, discount: 1_000, fine: 0, interest: 0, final: 24_000 },
    // Thursday and Friday: no discount any more, not late yet.
    { charge: acceptance, date: "2026-12-03", rebate: 0, discount: 0, fine: 0, interest: 0, final: 25_000 },
    { charge: acceptance, date: "2026-12-04", rebate: 0, discount: 0, fine: 0, interest: 0, final: 25_000 },
    // Saturday, 1 day late: fine 25.000 × 2 % = 500; interest 25.000 × 1 % / 30 × 1 = 8,33 → 8.
    { charge: acceptance, date: "2026-12-05", rebate: 0, discount: 0, fine: 500, interest: 8, final: 25_508 },
    // 10 days late (Monday 14): fine 500 once; interest 25.000 × 1 % / 30 × 10 = 83,33 → 83.
    { charge: acceptance, date: "2026-12-14", rebate: 0, discount: 0, fine: 500, interest: 83, final: 25_583 },
    // 30 days late (Sunday 2027-01-03): 25.000 × 1 % = 250 exactly.
    { charge: acceptance, date: "2027-01-03", rebate: 0, discount: 0, fine: 500, interest: 250, final: 25_750 },
    // Due on a Sunday, paid on Monday: the due date in fact, no fine.
    { charge: sunday, date: "2026-12-07", rebate: 0, discount: 0, fine: 0, interest: 0, final: 25_000 },
    // Paid on Tuesday: 1 day late from Monday: 500 + 8.
    { charge: sunday, date: "2026-12-08", rebate: 0, discount: 0, fine: 500, interest: 8, final: 25_508 },
  ])(
    "when the charge is paid on $date, then rebate $rebate, discount $discount, fine $fine, interest $interest, final $final",
    ({ charge, date, ...expected }) => {
      expect(breakdown(amountDue(charge, date))).toEqual(expected);
    },
  );

  // R$ 1.234,56 due Friday 2026-12-04, paid Monday 2026-12-07: 3 calendar days late, 1 business day.
  test.each([
    // 50 × 3.
    { mode: "AMOUNT_PER_CALENDAR_DAY", amountCents: 50, interest: 150, days: 3 },
    // 123.456 × 0,10 % × 3 = 370,368 → 370.
    { mode: "PERCENTAGE_PER_CALENDAR_DAY", rateBps: 10, interest: 370, days: 3 },
    // 123.456 × 1 % / 30 × 3 = 123,456 → 123.
    { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100, interest: 123, days: 3 },
    // 123.456 × 12 % / 365 × 3 = 121,765… → 122.
    { mode: "PERCENTAGE_PER_YEAR_CALENDAR_DAYS", rateBps: 1_200, interest: 122, days: 3 },
    // 50 × 1.
    { mode: "AMOUNT_PER_BUSINESS_DAY", amountCents: 50, interest: 50, days: 1 },
    // 123.456 × 0,10 % × 1 = 123,456 → 123.
    { mode: "PERCENTAGE_PER_BUSINESS_DAY", rateBps: 10, interest: 123, days: 1 },
    // 123.456 × 1 % / 21 × 1 = 58,788… → 59.
    { mode: "PERCENTAGE_PER_MONTH_BUSINESS_DAYS", rateBps: 100, interest: 59, days: 1 },
    // 123.456 × 10 % / 252 × 1 = 48,990… → 49.
    { mode: "PERCENTAGE_PER_YEAR_BUSINESS_DAYS", rateBps: 1_000, interest: 49, days: 1 },
  ] as { mode: InterestMode; amountCents?: number; rateBps?: number; interest: number; days: number }[])(
    "when interest $mode is owed for a Friday due date paid on Monday, then it is $interest cents",
    ({ mode, amountCents, rateBps, interest, days }) => {
      const charge = terms(
        { amountCents: 123_456, dueDate: "2026-12-04", interest: { mode, amountCents, rateBps } },
        "2026-11-28",
      );
      const due = amountDue(charge, "2026-12-07");
      expect(due.interestDays).toBe(days);
      expect(due.interestCents).toBe(interest);
      expect(due.finalCents).toBe(123_456 + interest);
    },
  );

  test("when interest in business days is owed on the Saturday after a Friday due date, then no business day has passed: fine only", () => {
    const charge = terms(
      {
        amountCents: 123_456,
        dueDate: "2026-12-04",
        fine: { mode: "FIXED", amountCents: 1_000 },
        interest: { mode: "AMOUNT_PER_BUSINESS_DAY", amountCents: 50 },
      },
      "2026-11-28",
    );
    expect(breakdown(amountDue(charge, "2026-12-05"))).toEqual({
      rebate: 0,
      discount: 0,
      fine: 1_000,
      interest: 0,
      final: 124_456,
    });
  });

  test.each([
    // Fine 0,5 % of R$ 101,00 = 50,5 cents → 51: half up.
    {
      name: "a half cent rounds up",
      amountCents: 10_100,
      fine: 50,
      rebate: undefined,
      paid: "2026-12-05",
      expected: { rebate: 0, discount: 0, fine: 51, interest: 0, final: 10_151 },
    },
    // Rebate 5 % of 123,45 = 617,25 → 617; rebated 11.728; fine 2 % of it = 234,56 → 235.
    {
      name: "a percentage rebate, then a fine on the rebated amount",
      amountCents: 12_345,
      fine: 200,
      rebate: 500,
      paid: "2026-12-05",
      expected: { rebate: 617, discount: 0, fine: 235, interest: 0, final: 11_963 },
    },
    // Before the due date the rebate still applies, and nothing else.
    {
      name: "a rebate paid early",
      amountCents: 12_345,
      fine: 200,
      rebate: 500,
      paid: "2026-12-04",
      expected: { rebate: 617, discount: 0, fine: 0, interest: 0, final: 11_728 },
    },
  ])("when $name, then the breakdown is exact", ({ amountCents, fine, rebate, paid, expected }) => {
    const charge = terms(
      {
        amountCents,
        dueDate: "2026-12-04",
        fine: { mode: "PERCENTAGE", rateBps: fine },
        rebate: rebate === undefined ? undefined : { mode: "PERCENTAGE", rateBps: rebate },
      },
      "2026-11-28",
    );
    expect(breakdown(amountDue(charge, paid))).toEqual(expected);
  });

  // R$ 100,00 due Friday 2026-12-04; a fixed rebate of R$ 10,00 where said.
  test.each([
    // Three dates: 300 until Fri 20 Nov (a holiday: moves to Mon 23), 200 until Fri 27, 100 until the due date.
    { mode: "AMOUNT_UNTIL_DATES", paid: "2026-11-19", discount: 300, until: "2026-11-23" },
    { mode: "AMOUNT_UNTIL_DATES", paid: "2026-11-23", discount: 300, until: "2026-11-23" },
    { mode: "AMOUNT_UNTIL_DATES", paid: "2026-11-24", discount: 200, until: "2026-11-27" },
    { mode: "AMOUNT_UNTIL_DATES", paid: "2026-11-28", discount: 100, until: "2026-12-04" },
    { mode: "AMOUNT_UNTIL_DATES", paid: "2026-12-04", discount: 100, until: "2026-12-04" },
    { mode: "AMOUNT_UNTIL_DATES", paid: "2026-12-05", discount: 0, until: null },
    // 10 % until the 27th, of the rebated 9.000 = 900.
    { mode: "PERCENTAGE_UNTIL_DATES", rebate: 1_000, paid: "2026-11-27", discount: 900, until: "2026-11-27" },
    // 10 cents per calendar day early: Monday 30 Nov → Friday 4 Dec is 4 days; Saturday 28 is 6.
    { mode: "AMOUNT_PER_CALENDAR_DAY", paid: "2026-11-30", discount: 40, days: 4 },
    { mode: "AMOUNT_PER_CALENDAR_DAY", paid: "2026-11-28", discount: 60, days: 6 },
    // 10 cents per business day early, the payment day included, the due date not: Mon–Thu = 4; from
    // Saturday 28 the same 4; from Friday 27, 5.
    { mode: "AMOUNT_PER_BUSINESS_DAY", paid: "2026-11-30", discount: 40, days: 4 },
    { mode: "AMOUNT_PER_BUSINESS_DAY", paid: "2026-11-28", discount: 40, days: 4 },
    { mode: "AMOUNT_PER_BUSINESS_DAY", paid: "2026-11-27", discount: 50, days: 5 },
    // 0,05 % of 10.000 per calendar day × 6 = 30; of the rebated 9.000 × 6 = 27.
    { mode: "PERCENTAGE_PER_CALENDAR_DAY", paid: "2026-11-28", discount: 30, days: 6 },
    { mode: "PERCENTAGE_PER_CALENDAR_DAY", rebate: 1_000, paid: "2026-11-28", discount: 27, days: 6 },
    // 0,05 % per business day × 5 (Fri 27 to Thu 3) = 25.
    { mode: "PERCENTAGE_PER_BUSINESS_DAY", paid: "2026-11-27", discount: 25, days: 5 },
    // On the due date, no day early.
    { mode: "PERCENTAGE_PER_BUSINESS_DAY", paid: "2026-12-04", discount: 0, days: 0 },
  ] as { mode: DiscountMode; rebate?: number; paid: string; discount: number; until?: string | null; days?: number }[])(
    "when discount $mode is paid on $paid, then it is $discount cents",
    ({ mode, rebate, paid, discount, until, days }) => {
      const value = discountModes[mode].value === "amount" ? { amountCents: 10 } : { rateBps: 5 };
      const charge = terms(
        {
          amountCents: 10_000,
          dueDate: "2026-12-04",
          rebate: rebate === undefined ? undefined : { mode: "FIXED", amountCents: rebate },
          discount:
            mode === "AMOUNT_UNTIL_DATES"
              ? {
                  mode,
                  dates: [
                    { date: "2026-11-20", amountCents: 300 },
                    { date: "2026-11-27", amountCents: 200 },
                    { date: "2026-12-04", amountCents: 100 },
                  ],
                }
              : mode === "PERCENTAGE_UNTIL_DATES"
                ? { mode, dates: [{ date: "2026-11-27", rateBps: 1_000 }] }
                : { mode, ...value },
        },
        "2026-11-19",
      );
      const due = amountDue(charge, paid);
      expect(due.discountCents).toBe(discount);
      expect(due.finalCents).toBe(10_000 - (rebate ?? 0) - discount);
      if (until !== undefined) expect(due.discountUntil).toBe(until);
      if (days !== undefined) expect(due.discountDays).toBe(days);
    },
  );

  test("when Manual's interest example of bacen/pix-api issue 607 is computed (R$ 30.000,00, 1 % a month, 1 day late), then it is R$ 10,00 exactly", () => {
    const charge = terms(
      {
        amountCents: 3_000_000,
        dueDate: "2024-09-04",
        interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      },
      "2024-09-01",
    );
    expect(amountDue(charge, "2024-09-05").interestCents).toBe(1_000);
  });
});

describe("the standard's percentages", () => {
  test.each([
    { valorPerc: "0.01", bps: 1 },
    { valorPerc: "2.00", bps: 200 },
    { valorPerc: "2.50", bps: 250 },
    { valorPerc: "100.00", bps: 10_000 },
  ])("when valorPerc is $valorPerc, then it is $bps basis points, and back", ({ valorPerc, bps }) => {
    expect(percentToRateBps(valorPerc)).toBe(bps);
    expect(rateBpsToPercent(bps)).toBe(valorPerc);
  });

  test.each(["2", "2.5", "2,00", "-1.00", ""])("when valorPerc is %j, then it is refused", (valorPerc) => {
    expect(() => percentToRateBps(valorPerc)).toThrow(RangeError);
  });
});

describe("properties", () => {
  const today = "2026-11-02";
  const rate = fc.integer({ min: 1, max: 2_000 });
  const amount = fc.integer({ min: 1, max: 5_000 });
  const valued = (kind: "amount" | "rate") =>
    kind === "amount" ? amount.map((amountCents) => ({ amountCents })) : rate.map((rateBps) => ({ rateBps }));
  const flat = fc
    .constantFrom("FIXED" as const, "PERCENTAGE" as const)
    .chain((mode) => valued(mode === "FIXED" ? "amount" : "rate").map((value) => ({ mode, ...value })));
  const interest = fc
    .constantFrom(...(Object.keys(interestModes) as InterestMode[]))
    .chain((mode) => valued(interestModes[mode].value).map((value) => ({ mode, ...value })));
  const dueDate = fc.integer({ min: 0, max: 120 }).map((days) => addDays(today, days));
  type DiscountInput = NonNullable<DueDateTermsInput["discount"]>;
  const discount = (due: string): fc.Arbitrary<DiscountInput> =>
    fc.constantFrom(...(Object.keys(discountModes) as DiscountMode[])).chain((mode): fc.Arbitrary<DiscountInput> => {
      const { value, per } = discountModes[mode];
      if (per !== "DATE") return valued(value).map((v) => ({ mode, ...v }));
      const entry = fc
        .record({ date: fc.integer({ min: 0, max: 60 }).map((back) => addDays(due, -back)) })
        .chain((e) => valued(value).map((v) => ({ ...e, ...v })));
      return fc
        .uniqueArray(entry, { minLength: 1, maxLength: 3, selector: (e) => e.date })
        .map((dates) => ({ mode, dates }));
    });
  const input: fc.Arbitrary<DueDateTermsInput> = dueDate.chain((due) =>
    fc.record({
      amountCents: fc.integer({ min: 500, max: 100_000_000 }),
      dueDate: fc.constant(due),
      daysPayableAfterDue: fc.integer({ min: 0, max: 60 }),
      fine: fc.option(flat, { nil: undefined }),
      interest: fc.option(interest, { nil: undefined }),
      rebate: fc.option(flat, { nil: undefined }),
      discount: fc.option(discount(due), { nil: undefined }),
    }),
  );
  /** Terms that pass the checks (most do), and two payment dates from today to after the last payable day. */
  const scenario = fc
    .tuple(input, fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 200 }))
    .map(([raw, a, b]) => {
      try {
        return {
          terms: checkDueDateTerms(raw, today),
          first: addDays(today, Math.min(a, b)),
          second: addDays(today, Math.max(a, b)),
        };
      } catch {
        return null;
      }
    })
    .filter((s): s is NonNullable<typeof s> => s !== null);

  test("when any checked charge is paid on any day, then nothing is negative, the final amount is positive and the breakdown adds up", () => {
    fc.assert(
      fc.property(scenario, ({ terms: charge, first }) => {
        const due = amountDue(charge, first);
        for (const cents of [due.rebateCents, due.discountCents, due.fineCents, due.interestCents]) {
          expect(Number.isSafeInteger(cents) && cents >= 0).toBe(true);
        }
        expect(due.finalCents).toBeGreaterThanOrEqual(1);
        expect(due.finalCents).toBe(
          due.originalCents - due.rebateCents - due.discountCents + due.fineCents + due.interestCents,
        );
      }),
      { numRuns: 300 },
    );
  });

  test("when paid on or before the due date in fact, then the discount stays below the rebated amount and no fine or interest is owed; after it, no discount", () => {
    fc.assert(
      fc.property(scenario, ({ terms: charge, first }) => {
        const due = amountDue(charge, first);
        const rebated = due.originalCents - due.rebateCents;
        expect(due.rebateCents).toBeLessThan(due.originalCents);
        expect(due.discountCents).toBeLessThan(rebated);
        if (first <= due.dueDate) {
          expect(due.fineCents + due.interestCents).toBe(0);
          expect(due.finalCents).toBeLessThanOrEqual(rebated);
        } else {
          expect(due.discountCents).toBe(0);
          expect(due.finalCents).toBeGreaterThanOrEqual(rebated);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("when paid later, then the interest never falls, the fine is the same single amount on every late day, and the discount never grows", () => {
    fc.assert(
      fc.property(scenario, ({ terms: charge, first, second }) => {
        const early = amountDue(charge, first);
        const late = amountDue(charge, second);
        expect(late.interestCents).toBeGreaterThanOrEqual(early.interestCents);
        expect(late.discountCents).toBeLessThanOrEqual(early.discountCents);
        expect(late.finalCents).toBeGreaterThanOrEqual(early.finalCents);
        if (early.daysLate > 0) expect(late.fineCents).toBe(early.fineCents);
        if (late.daysLate > 0) {
          const firstLateDay = amountDue(charge, addDays(late.dueDate, 1));
          expect(late.fineCents).toBe(firstLateDay.fineCents);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("when any percentage interest is owed, then it is the exact amount rounded once to the nearest cent", () => {
    fc.assert(
      fc.property(scenario, ({ terms: charge, second }) => {
        const due = amountDue(charge, second);
        if (!charge.interest || !("rateBps" in charge.interest)) return;
        const rebated = due.originalCents - due.rebateCents;
        const exact =
          (rebated * charge.interest.rateBps * due.interestDays) /
          (10_000 * interestModes[charge.interest.mode].periodDays);
        expect(Math.abs(due.interestCents - exact)).toBeLessThanOrEqual(0.5 + 1e-9);
      }),
      { numRuns: 300 },
    );
  });

  test("when a charge is paid on any day, then it is payable exactly up to its last payable day, a business day", () => {
    fc.assert(
      fc.property(scenario, ({ terms: charge, first }) => {
        const due = amountDue(charge, first);
        expect(due.payable).toBe(first <= due.lastPayableDate);
        expect(amountDue(charge, due.lastPayableDate).payable).toBe(true);
        expect(amountDue(charge, addDays(due.lastPayableDate, 1)).payable).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
