import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { centsFromValor, largestCents, valorFromCents } from "../../src/bank/money.js";

describe("the API Pix's money strings", () => {
  test.each([
    { valor: "0.00", cents: 0 },
    { valor: "0.01", cents: 1 },
    { valor: "0.10", cents: 10 },
    { valor: "1.00", cents: 100 },
    { valor: "123.45", cents: 12345 },
    { valor: "0.29", cents: 29 },
    { valor: "1.15", cents: 115 },
    { valor: "9999999999.99", cents: largestCents },
  ])("when the bank writes $valor, then it is $cents cents, and back", ({ valor, cents }) => {
    expect(centsFromValor(valor)).toBe(cents);
    expect(valorFromCents(cents)).toBe(valor);
  });

  test("when any amount in range goes to the standard's string and back, then it is the same integer", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: largestCents }), (cents) => {
        const valor = valorFromCents(cents);
        expect(valor).toMatch(/^\d{1,10}\.\d{2}$/);
        expect(centsFromValor(valor)).toBe(cents);
      }),
    );
  });

  test("when a leading zero pads the reais, then the amount is the same", () => {
    expect(centsFromValor("007.05")).toBe(705);
  });

  test.each(["1", "1.5", "1.555", "-1.00", "1,00", " 1.00", "1.00 ", "1e2.00", "12345678901.00", "", ".50", "0x1.00"])(
    "when the bank writes %j, then it is refused (not the standard's pattern)",
    (valor) => {
      expect(() => centsFromValor(valor)).toThrow(RangeError);
    },
  );

  test.each([-1, 1.5, largestCents + 1, Number.NaN, Number.POSITIVE_INFINITY])(
    "when %d cents are written, then it is refused",
    (cents) => {
      expect(() => valorFromCents(cents)).toThrow(RangeError);
    },
  );
});
