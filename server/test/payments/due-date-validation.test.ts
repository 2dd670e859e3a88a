import { describe, expect, test } from "vitest";
import { DomainError } from "../../src/domain/core/errors.js";
import { checkDueDateTerms, type DueDateTermsInput, dueDateLimits } from "../../src/domain/payments/index.js";

// The refusals of a charge with a due date's terms (record 0052): `400 VALIDATION_ERROR` on the
// field, with a Portuguese message.

const today = "2026-11-28"; // a Saturday
const base: DueDateTermsInput = { amountCents: 10_000, dueDate: "2026-12-04" };

/** The one field error `checkDueDateTerms` throws for `input`. */
function refusal(input: DueDateTermsInput): { path: string; message: string } {
  try {
    checkDueDateTerms(input, today);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const domainError = error as DomainError;
    expect(domainError.code).toBe("VALIDATION_ERROR");
    expect(domainError.errors).toHaveLength(1);
    return domainError.errors?.[0] as { path: string; message: string };
  }
  throw new Error("accepted");
}

describe("checkDueDateTerms", () => {
  test("when the terms are complete and fit, then they are kept, with 30 days payable after the due date by default", () => {
    const terms = checkDueDateTerms(
      {
        ...base,
        fine: { mode: "PERCENTAGE", rateBps: 200 },
        interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
        rebate: { mode: "FIXED", amountCents: 500 },
        discount: {
          mode: "AMOUNT_UNTIL_DATES",
          dates: [
            { date: "2026-12-02", amountCents: 1_000 },
            { date: "2026-12-04", amountCents: 500 },
          ],
        },
      },
      today,
    );
    expect(terms).toEqual({
      amountCents: 10_000,
      dueDate: "2026-12-04",
      daysPayableAfterDue: 30,
      fine: { mode: "PERCENTAGE", rateBps: 200 },
      interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      rebate: { mode: "FIXED", amountCents: 500 },
      discount: {
        mode: "AMOUNT_UNTIL_DATES",
        dates: [
          { date: "2026-12-02", amountCents: 1_000 },
          { date: "2026-12-04", amountCents: 500 },
        ],
      },
    });
    expect(dueDateLimits.defaultDaysPayableAfterDue).toBe(30);
  });

  test("when the due date is today and nothing is payable after it, then it is accepted", () => {
    expect(checkDueDateTerms({ ...base, dueDate: today, daysPayableAfterDue: 0 }, today).daysPayableAfterDue).toBe(0);
  });

  test.each([
    {
      name: "a due date in the past",
      input: { ...base, dueDate: "2026-11-27" },
      path: "dueDate",
      message: "não pode ser anterior a hoje (2026-11-28)",
    },
    {
      name: "a due date that is no date",
      input: { ...base, dueDate: "2026-02-30" },
      path: "dueDate",
      message: "deve ser uma data válida no formato AAAA-MM-DD",
    },
    {
      name: "a due date more than 5 years ahead",
      input: { ...base, dueDate: "2031-11-29" },
      path: "dueDate",
      message: "deve estar em até 5 anos a partir de hoje (2031-11-28)",
    },
    {
      name: "an amount below the smallest charge",
      input: { ...base, amountCents: 499 },
      path: "amountCents",
      message: "deve ser maior ou igual a 500",
    },
    {
      name: "negative days payable after the due date",
      input: { ...base, daysPayableAfterDue: -1 },
      path: "daysPayableAfterDue",
      message: "deve ser um número inteiro de 0 a 365 (dias corridos após o vencimento)",
    },
    {
      name: "too many days payable after the due date",
      input: { ...base, daysPayableAfterDue: 366 },
      path: "daysPayableAfterDue",
      message: "deve ser um número inteiro de 0 a 365 (dias corridos após o vencimento)",
    },
    {
      name: "fractional days payable",
      input: { ...base, daysPayableAfterDue: 1.5 },
      path: "daysPayableAfterDue",
      message: "deve ser um número inteiro de 0 a 365 (dias corridos após o vencimento)",
    },
    // A field that does not fit its mode.
    {
      name: "a fixed fine given as a rate",
      input: { ...base, fine: { mode: "FIXED" as const, rateBps: 200 } },
      path: "fine.rateBps",
      message: "não se usa na modalidade FIXED; informe amountCents",
    },
    {
      name: "a percentage fine without its rate",
      input: { ...base, fine: { mode: "PERCENTAGE" as const } },
      path: "fine.rateBps",
      message: "é obrigatório na modalidade PERCENTAGE",
    },
    {
      name: "a fine of an unknown mode",
      input: { ...base, fine: { mode: "toString" as "FIXED", amountCents: 1 } },
      path: "fine.mode",
      message: "deve ser FIXED ou PERCENTAGE",
    },
    {
      name: "interest per month given as an amount",
      input: { ...base, interest: { mode: "PERCENTAGE_PER_MONTH_BUSINESS_DAYS" as const, amountCents: 10 } },
      path: "interest.amountCents",
      message: "não se usa na modalidade PERCENTAGE_PER_MONTH_BUSINESS_DAYS; informe rateBps",
    },
    {
      name: "interest per day as an amount without it",
      input: { ...base, interest: { mode: "AMOUNT_PER_CALENDAR_DAY" as const } },
      path: "interest.amountCents",
      message: "é obrigatório na modalidade AMOUNT_PER_CALENDAR_DAY",
    },
    {
      name: "an interest mode that does not exist",
      input: { ...base, interest: { mode: "COMPOUND" as "AMOUNT_PER_CALENDAR_DAY", rateBps: 1 } },
      path: "interest.mode",
      message:
        "deve ser um de AMOUNT_PER_CALENDAR_DAY, PERCENTAGE_PER_CALENDAR_DAY, PERCENTAGE_PER_MONTH_CALENDAR_DAYS, PERCENTAGE_PER_YEAR_CALENDAR_DAYS, AMOUNT_PER_BUSINESS_DAY, PERCENTAGE_PER_BUSINESS_DAY, PERCENTAGE_PER_MONTH_BUSINESS_DAYS, PERCENTAGE_PER_YEAR_BUSINESS_DAYS",
    },
    {
      name: "a rate above 100 %",
      input: { ...base, interest: { mode: "PERCENTAGE_PER_CALENDAR_DAY" as const, rateBps: 10_001 } },
      path: "interest.rateBps",
      message: "deve ser um número inteiro de pontos-base de 1 a 10000 (100 = 1%)",
    },
    {
      name: "a rate of zero",
      input: { ...base, fine: { mode: "PERCENTAGE" as const, rateBps: 0 } },
      path: "fine.rateBps",
      message: "deve ser um número inteiro de pontos-base de 1 a 10000 (100 = 1%)",
    },
    {
      name: "a fixed fine of zero",
      input: { ...base, fine: { mode: "FIXED" as const, amountCents: 0 } },
      path: "fine.amountCents",
      message: "deve ser maior ou igual a 1",
    },
    {
      name: "a dated discount with a top-level amount",
      input: {
        ...base,
        discount: {
          mode: "AMOUNT_UNTIL_DATES" as const,
          amountCents: 100,
          dates: [{ date: "2026-12-01", amountCents: 100 }],
        },
      },
      path: "discount.amountCents",
      message: "não se usa na modalidade AMOUNT_UNTIL_DATES; informe o valor de cada data em dates",
    },
    {
      name: "a dated discount without dates",
      input: { ...base, discount: { mode: "PERCENTAGE_UNTIL_DATES" as const } },
      path: "discount.dates",
      message: "deve ter de 1 a 3 datas na modalidade PERCENTAGE_UNTIL_DATES",
    },
    {
      name: "four discount dates",
      input: {
        ...base,
        discount: {
          mode: "AMOUNT_UNTIL_DATES" as const,
          dates: ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03"].map((date) => ({ date, amountCents: 100 })),
        },
      },
      path: "discount.dates",
      message: "deve ter de 1 a 3 datas na modalidade AMOUNT_UNTIL_DATES",
    },
    {
      name: "a percentage discount date given as an amount",
      input: {
        ...base,
        discount: { mode: "PERCENTAGE_UNTIL_DATES" as const, dates: [{ date: "2026-12-01", amountCents: 100 }] },
      },
      path: "discount.dates.0.amountCents",
      message: "não se usa na modalidade PERCENTAGE_UNTIL_DATES; informe rateBps",
    },
    {
      name: "a per-day discount with dates",
      input: {
        ...base,
        discount: { mode: "AMOUNT_PER_BUSINESS_DAY" as const, amountCents: 10, dates: [{ date: "2026-12-01" }] },
      },
      path: "discount.dates",
      message: "não se usa na modalidade AMOUNT_PER_BUSINESS_DAY; o desconto é por dia de antecipação",
    },
    {
      name: "a discount date that is no object",
      input: {
        ...base,
        discount: { mode: "AMOUNT_UNTIL_DATES" as const, dates: [null as unknown as { date: string }] },
      },
      path: "discount.dates.0",
      message: "deve ser um objeto com date e o valor",
    },
    // A discount date after the due date, repeated, or growing with the date.
    {
      name: "a discount date after the due date",
      input: {
        ...base,
        discount: { mode: "AMOUNT_UNTIL_DATES" as const, dates: [{ date: "2026-12-05", amountCents: 100 }] },
      },
      path: "discount.dates.0.date",
      message: "não pode ser posterior ao vencimento (2026-12-04)",
    },
    {
      name: "a repeated discount date",
      input: {
        ...base,
        discount: {
          mode: "AMOUNT_UNTIL_DATES" as const,
          dates: [
            { date: "2026-12-01", amountCents: 200 },
            { date: "2026-12-01", amountCents: 100 },
          ],
        },
      },
      path: "discount.dates.1.date",
      message: "repete a data de outro desconto",
    },
    {
      name: "a later discount larger than an earlier one",
      input: {
        ...base,
        discount: {
          mode: "PERCENTAGE_UNTIL_DATES" as const,
          dates: [
            { date: "2026-12-04", rateBps: 500 },
            { date: "2026-12-01", rateBps: 300 },
          ],
        },
      },
      path: "discount.dates.0.rateBps",
      message: "o desconto até 2026-12-04 não pode ser maior que o desconto até 2026-12-01, uma data anterior",
    },
    // A discount or rebate reaching the amount.
    {
      name: "a rebate of the whole amount",
      input: { ...base, rebate: { mode: "FIXED" as const, amountCents: 10_000 } },
      path: "rebate.amountCents",
      message: "o abatimento (R$ 100,00) alcança o valor da cobrança (R$ 100,00)",
    },
    {
      name: "a rebate of 100 %",
      input: { ...base, rebate: { mode: "PERCENTAGE" as const, rateBps: 10_000 } },
      path: "rebate.rateBps",
      message: "o abatimento (R$ 100,00) alcança o valor da cobrança (R$ 100,00)",
    },
    {
      name: "a dated discount that, with the rebate, reaches the amount",
      input: {
        ...base,
        rebate: { mode: "FIXED" as const, amountCents: 6_000 },
        discount: { mode: "AMOUNT_UNTIL_DATES" as const, dates: [{ date: "2026-12-01", amountCents: 4_000 }] },
      },
      path: "discount.dates.0.amountCents",
      message: "o desconto até 2026-12-01 (R$ 40,00) alcança o valor da cobrança após o abatimento (R$ 40,00)",
    },
    {
      name: "a dated discount of 100 %",
      input: {
        ...base,
        discount: { mode: "PERCENTAGE_UNTIL_DATES" as const, dates: [{ date: "2026-12-01", rateBps: 10_000 }] },
      },
      path: "discount.dates.0.rateBps",
      message: "o desconto até 2026-12-01 (R$ 100,00) alcança o valor da cobrança (R$ 100,00)",
    },
    // Paid today (Saturday 28) for Friday 4: 6 calendar days × R$ 20,00 = R$ 120,00.
    {
      name: "a per-day discount that, paid today, reaches the amount",
      input: { ...base, discount: { mode: "AMOUNT_PER_CALENDAR_DAY" as const, amountCents: 2_000 } },
      path: "discount.amountCents",
      message: "o desconto de 6 dias de antecipação, pago hoje, (R$ 120,00) alcança o valor da cobrança (R$ 100,00)",
    },
    // Interest so large that the last payable day would owe more than a BR Code can carry: due Friday
    // 2026-12-04 + 30 days = Sunday 2027-01-03, payable to Monday 4, 31 days late: R$ 9 bi × (1 + 1 % × 31).
    {
      name: "interest beyond the largest amount",
      input: {
        amountCents: 900_000_000_000,
        dueDate: "2026-12-04",
        interest: { mode: "PERCENTAGE_PER_CALENDAR_DAY" as const, rateBps: 100 },
      },
      path: "interest",
      message:
        "no último dia de pagamento (2027-01-04) o valor devido (R$ 11.790.000.000,00) passaria do máximo (R$ 9.999.999.999,99)",
    },
  ] as { name: string; input: DueDateTermsInput; path: string; message: string }[])(
    "when $name is asked, then it is refused on $path",
    ({ input, path, message }) => {
      expect(refusal(input)).toEqual({ path, message });
    },
  );

  test("when a per-day discount leaves at least a cent paid today, then it is accepted (6 days × R$ 16,66 = R$ 99,96 < R$ 100,00)", () => {
    expect(
      checkDueDateTerms({ ...base, discount: { mode: "AMOUNT_PER_CALENDAR_DAY", amountCents: 1_666 } }, today).discount,
    ).toEqual({ mode: "AMOUNT_PER_CALENDAR_DAY", amountCents: 1_666 });
  });
});
