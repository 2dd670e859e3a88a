import { describe, expect, test } from "vitest";
import { ApiError, fieldErrors } from "../src/api/errors";
import {
  type AmountDue,
  breakdownLines,
  emptyTermsForm,
  formatRate,
  overdueBadge,
  parsePercentInput,
  termsFieldOf,
  termsFromForm,
  termsInWords,
} from "../src/features/due-date-charges/terms";

// A charge with a due date as the merchant types it in the dashboard (issue 38): the form's text
// into the API's terms, the server's refusals back onto the fields in reais and dd/mm/aaaa, and the
// terms, the breakdown and the "Vencida" badge in words. The amounts themselves are the server's.

const nbsp = "\u00a0";

describe("percentages typed by a person", () => {
  test.each([
    { text: "2", bps: 200 },
    { text: "2,5", bps: 250 },
    { text: "0,01", bps: 1 },
    { text: " 1,25 % ", bps: 125 },
    { text: "100", bps: 10000 },
    { text: "0", bps: null },
    { text: "100,01", bps: null },
    { text: "2,555", bps: null },
    { text: "dois", bps: null },
  ])("when “$text” is typed, then it is $bps basis points", ({ text, bps }) => {
    expect(parsePercentInput(text)).toBe(bps);
  });

  test("when a rate is written, then it reads as pt-BR writes a percentage", () => {
    expect([formatRate(200), formatRate(250), formatRate(1)]).toEqual(["2%", "2,5%", "0,01%"]);
  });
});

describe("the form's terms", () => {
  test("when the acceptance's terms are typed, then the API's body is in cents, basis points and ISO days", () => {
    const { terms, wrong } = termsFromForm({
      ...emptyTermsForm,
      amount: "500,00",
      dueDate: "13/12/2030",
      fineMode: "PERCENTAGE",
      fineValue: "2",
      interestMode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS",
      interestValue: "1",
      discountMode: "AMOUNT_UNTIL_DATES",
      discountDate0: "11/12/2030",
      discountValue0: "10,00",
    });

    expect(wrong).toEqual({});
    expect(terms).toEqual({
      amountCents: 50000,
      dueDate: "2030-12-13",
      daysPayableAfterDue: 30,
      fine: { mode: "PERCENTAGE", rateBps: 200 },
      interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2030-12-11", amountCents: 1000 }] },
    });
  });

  test("when a value, a date or the days are mistyped, then each field says so and no terms are sent", () => {
    const { terms, wrong } = termsFromForm({
      ...emptyTermsForm,
      amount: "500,00",
      dueDate: "31/02/2030",
      daysPayableAfterDue: "400",
      fineMode: "FIXED",
      fineValue: "dez",
      rebateMode: "PERCENTAGE",
      rebateValue: "150",
      discountMode: "PERCENTAGE_PER_BUSINESS_DAY",
      discountValue: "",
    });

    expect(terms).toBeNull();
    expect(Object.keys(wrong).sort()).toEqual(
      ["daysPayableAfterDue", "discountValue", "dueDate", "fineValue", "rebateValue"].sort(),
    );
  });

  test("when a discount by dates has none, then the first date asks for one", () => {
    const { terms, wrong } = termsFromForm({
      ...emptyTermsForm,
      amount: "100,00",
      dueDate: "13/12/2030",
      discountMode: "PERCENTAGE_UNTIL_DATES",
    });

    expect(terms).toBeNull();
    expect(wrong.discountDate0).toBe("informe ao menos uma data de desconto");
  });

  test("when the amount or the due date is still empty, then there are no terms yet and nothing is wrong", () => {
    expect(termsFromForm({ ...emptyTermsForm, amount: "100,00" })).toEqual({ terms: null, wrong: {} });
  });

  test.each([
    { path: "amountCents", field: "amount" },
    { path: "dueDate", field: "dueDate" },
    { path: "fine.rateBps", field: "fineValue" },
    { path: "interest", field: "interestValue" },
    { path: "interest.mode", field: "interestMode" },
    { path: "rebate.amountCents", field: "rebateValue" },
    { path: "discount.dates.1.date", field: "discountDate1" },
    { path: "discount.dates.2.amountCents", field: "discountValue2" },
    { path: "discount.dates", field: "discountDate0" },
    { path: "discount.rateBps", field: "discountValue" },
    { path: "paymentDates.0", field: "chosenDate" },
    { path: "customer.name", field: null },
  ])("when the server refuses $path, then the form shows it under $field", ({ path, field }) => {
    expect(termsFieldOf(path)).toBe(field);
  });
});

describe("a refusal's message as the form shows it", () => {
  test("when a money field's message is already in reais and names a date, then the reais stay and the date reads dd/mm/aaaa", async () => {
    const error = await ApiError.from(
      new Response(
        JSON.stringify({
          code: "VALIDATION_ERROR",
          message: "Dados inválidos.",
          errors: [
            {
              path: "discount.dates.0.amountCents",
              message: "o desconto até 2030-12-11 (R$ 600,00) alcança o valor da cobrança (R$ 500,00)",
            },
            { path: "dueDate", message: "não pode ser anterior a hoje (2030-12-10)" },
            {
              path: "discount.dates.1.amountCents",
              message: "o desconto até 2030-12-12 não pode ser maior que o desconto até 2030-12-11, uma data anterior",
            },
          ],
        }),
        { status: 400, headers: { "content-type": "application/json" } },
      ),
    );

    const { byField, rest } = fieldErrors(error, ["discount.dates.0", "dueDate"]);

    expect(byField).toEqual({
      "discount.dates.0": "o desconto até 11/12/2030 (R$ 600,00) alcança o valor da cobrança (R$ 500,00)",
      dueDate: "não pode ser anterior a hoje (10/12/2030)",
    });
    expect(rest[0]?.message).toBe(
      "o desconto até 12/12/2030 não pode ser maior que o desconto até 11/12/2030, uma data anterior",
    );
  });
});

describe("terms and amounts in words", () => {
  const due: AmountDue = {
    paymentDate: "2030-12-23",
    daysLate: 10,
    interestDays: 10,
    discountDays: 0,
    discountUntil: null,
    originalCents: 50000,
    rebateCents: 0,
    discountCents: 0,
    fineCents: 1000,
    interestCents: 167,
    finalCents: 51167,
  };
  const charge = {
    terms: {
      amountCents: 50000,
      dueDate: "2030-12-14",
      daysPayableAfterDue: 30,
      fine: { mode: "PERCENTAGE" as const, rateBps: 200 },
      interest: { mode: "AMOUNT_PER_BUSINESS_DAY" as const, amountCents: 50 },
      rebate: { mode: "FIXED" as const, amountCents: 500 },
      discount: {
        mode: "PERCENTAGE_UNTIL_DATES" as const,
        dates: [
          { date: "2030-12-05", rateBps: 500 },
          { date: "2030-12-10", rateBps: 250 },
        ],
      },
    },
    adjustedDueDate: "2030-12-16",
    lastPayableDate: "2031-01-15",
    amountDue: due,
  };

  test("when the terms are shown, then each reads in plain Portuguese, a due date on a weekend with the day it moves to", () => {
    expect(termsInWords(charge)).toEqual([
      ["Vencimento", "14/12/2030 (dia não útil: vale 16/12/2030)"],
      ["Pagável até", "15/01/2031 (30 dias após o vencimento)"],
      ["Valor original", `R$${nbsp}500,00`],
      ["Multa", "2%, uma vez, se pago depois do vencimento"],
      ["Juros", `R$${nbsp}0,50 por dia útil de atraso`],
      ["Abatimento", `R$${nbsp}5,00, sempre`],
      ["Desconto", "5% até 05/12/2030; 2,5% até 10/12/2030"],
    ]);
  });

  test("when a breakdown is shown, then its lines are the original and only the parts that are not zero, signed", () => {
    expect(breakdownLines(due)).toEqual([
      { label: "Valor original", cents: 50000, sign: "" },
      { label: "Multa", cents: 1000, sign: "+" },
      { label: "Juros (10 dias)", cents: 167, sign: "+" },
    ]);
    expect(
      breakdownLines({
        ...due,
        daysLate: 0,
        fineCents: 0,
        interestCents: 0,
        discountCents: 1000,
        discountUntil: "2030-12-11",
      }),
    ).toEqual([
      { label: "Valor original", cents: 50000, sign: "" },
      { label: "Desconto até 11/12/2030", cents: 1000, sign: "−" },
    ]);
  });

  test("when a charge waits past its due date, then it reads Vencida; paid, expired or on time, no badge", () => {
    expect(overdueBadge({ status: "WAITING_PAYMENT", dueDateCharge: charge })).toBe("Vencida");
    expect(overdueBadge({ status: "PAID", dueDateCharge: charge })).toBeNull();
    expect(overdueBadge({ status: "EXPIRED", dueDateCharge: { ...charge, amountDue: undefined } })).toBeNull();
    expect(
      overdueBadge({ status: "WAITING_PAYMENT", dueDateCharge: { ...charge, amountDue: { ...due, daysLate: 0 } } }),
    ).toBeNull();
    expect(overdueBadge({ status: "WAITING_PAYMENT" })).toBeNull();
  });
});
