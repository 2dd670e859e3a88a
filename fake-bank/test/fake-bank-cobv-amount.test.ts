import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  addDays,
  amountDue,
  checkDueDateTerms,
  type DiscountMode,
  discountModes,
  dueDateBankRequest,
  type DueDateTermsInput,
  type InterestMode,
  interestModes,
  isBusinessDay,
  lastPayableDate,
} from "../../server/src/domain/payments/index.js";
import type { DueDateChargeRecord, TransactionRecord } from "../../server/src/domain/core/model.js";
import { type CobvTerms, lastDay, owedOn } from "../src/cobv-amount.js";

// The fake bank's reckoning of a cobv (fake-bank/src/cobv-amount.ts) and the service's
// (server/src/domain/payments/due-date, record 0052) are two implementations of the same rules,
// written apart so that each checks the other (issue 38): for any terms the service accepts, sent
// as the service sends them to the bank (`dueDateBankRequest`), both ask the same amount, part by
// part, on every day from the creation to after the last payable day, and agree on that last day.

const today = "2026-11-02";

/** What the bank keeps of the service's request (its `valorPerc`s as hundredths, as cobv.ts reads them). */
function bankTermsOf(terms: DueDateChargeRecord["terms"]): CobvTerms {
  const charge = {
    id: "txn_x",
    customer: {},
    description: "",
    dueDateCharge: { terms },
  } as unknown as TransactionRecord & {
    dueDateCharge: DueDateChargeRecord;
  };
  const request = dueDateBankRequest(charge, "svctxnx");
  const value = (v: { modality: number; hundredths: number } | undefined) =>
    v === undefined ? undefined : { modalidade: v.modality, v: v.hundredths };
  const kept: CobvTerms = {
    original: request.amountCents,
    dataDeVencimento: request.dueDate,
    validadeAposVencimento: request.daysPayableAfterDue,
  };
  const multa = value(request.fine);
  const juros = value(request.interest);
  const abatimento = value(request.rebate);
  if (multa) kept.multa = multa;
  if (juros) kept.juros = juros;
  if (abatimento) kept.abatimento = abatimento;
  if (request.discount) {
    const { modality, hundredths, dates } = request.discount;
    kept.desconto = dates
      ? { modalidade: modality, datas: dates.map((d) => ({ data: d.date, v: d.hundredths })) }
      : { modalidade: modality, v: hundredths ?? 0 };
  }
  return kept;
}

describe("the fake bank's amount of a cobv against the service's", () => {
  test("when every day of 2025 to 2035 is asked, then both calendars agree on which are business days", () => {
    const disagree: string[] = [];
    for (let day = "2025-01-01"; day <= "2035-12-31"; day = addDays(day, 1)) {
      // The fake's own calendar, through the last payable day of a charge due that day with no days after.
      const fakeNext = lastDay({ original: 100, dataDeVencimento: day, validadeAposVencimento: 0 });
      if ((fakeNext === day) !== isBusinessDay(day)) disagree.push(day);
    }
    expect(disagree).toEqual([]);
  });

  test("when any terms the service accepts are paid on any day, then the bank asks the same amount, part by part", () => {
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
    const input = fc.integer({ min: 0, max: 400 }).chain((days) => {
      const due = addDays(today, days);
      return fc.record({
        amountCents: fc.integer({ min: 500, max: 100_000_000 }),
        dueDate: fc.constant(due),
        daysPayableAfterDue: fc.integer({ min: 0, max: 60 }),
        fine: fc.option(flat, { nil: undefined }),
        interest: fc.option(interest, { nil: undefined }),
        rebate: fc.option(flat, { nil: undefined }),
        discount: fc.option(discount(due), { nil: undefined }),
      });
    });
    const scenario = fc
      .tuple(input, fc.integer({ min: 0, max: 500 }))
      .map(([raw, day]) => {
        try {
          return { terms: checkDueDateTerms(raw, today), date: addDays(today, day) };
        } catch {
          return null;
        }
      })
      .filter((s): s is NonNullable<typeof s> => s !== null);

    fc.assert(
      fc.property(scenario, ({ terms, date }) => {
        const ours = amountDue(terms, date);
        const kept = bankTermsOf(terms);
        const bank = owedOn(kept, date);
        expect(lastDay(kept)).toBe(lastPayableDate(terms.dueDate, terms.daysPayableAfterDue));
        expect(bank).toEqual({
          original: ours.originalCents,
          abatimento: ours.rebateCents,
          desconto: ours.discountCents,
          multa: ours.fineCents,
          juros: ours.interestCents,
          total: ours.finalCents,
        });
      }),
      { numRuns: 2_000 },
    );
  });
});
