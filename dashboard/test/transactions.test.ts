import { describe, expect, test } from "vitest";
import {
  addressFromFilters,
  filtersFromAddress,
  monthOf,
  transactionQuery,
  transactionsCsvHref,
} from "../src/lib/transactions";

// The transaction list's view lives in the address and the CSV export follows it (issue 26).

describe("transaction filters", () => {
  test("when an address is read, then its known filters come back and the rest is dropped", () => {
    const search = new URLSearchParams("situacao=PAID&de=2026-11-01&ate=2026-11-30&link=plk_2Bc4&apos=txn_9&x=1");
    const filters = filtersFromAddress(search);
    expect(filters).toEqual({ status: "PAID", from: "2026-11-01", to: "2026-11-30", paymentLinkId: "plk_2Bc4" });
    expect(addressFromFilters(filters).toString()).toBe("situacao=PAID&de=2026-11-01&ate=2026-11-30&link=plk_2Bc4");
    expect(filtersFromAddress(new URLSearchParams("situacao=paga&de=amanha&link=http://x"))).toEqual({});
  });

  test("when the view is asked of the API, then the days are Brasília's instants, and the CSV link carries the same query", () => {
    const filters = { status: "PAID" as const, from: "2026-11-01", to: "2026-11-30" };
    expect(transactionQuery(filters)).toEqual({
      status: "PAID",
      createdFrom: "2026-11-01T03:00:00.000Z",
      createdTo: "2026-12-01T03:00:00.000Z",
    });
    expect(transactionsCsvHref("test", filters)).toBe(
      "/dashboard/v1/modes/test/transactions.csv?status=PAID&createdFrom=2026-11-01T03%3A00%3A00.000Z&createdTo=2026-12-01T03%3A00%3A00.000Z",
    );
    expect(transactionsCsvHref("production", {})).toBe("/dashboard/v1/modes/production/transactions.csv");
  });

  test("when a customer and a search are in the address, then they reach the API and the CSV, and text over the API's bound is dropped", () => {
    const search = new URLSearchParams("cliente=cus_8Kd2&busca=+529.982.247-25+");
    const filters = filtersFromAddress(search);
    expect(filters).toEqual({ customerId: "cus_8Kd2", search: "529.982.247-25" });
    expect(addressFromFilters(filters).toString()).toBe("cliente=cus_8Kd2&busca=529.982.247-25");
    expect(transactionQuery(filters)).toEqual({ customerId: "cus_8Kd2", search: "529.982.247-25" });
    expect(transactionsCsvHref("test", filters)).toBe(
      "/dashboard/v1/modes/test/transactions.csv?customerId=cus_8Kd2&search=529.982.247-25",
    );
    expect(filtersFromAddress(new URLSearchParams(`cliente=txn_1&busca=${"9".repeat(65)}`))).toEqual({});
    expect(filtersFromAddress(new URLSearchParams("busca=+++"))).toEqual({});
  });

  test("when the month of a day is asked, then it runs from the 1st to its last day", () => {
    expect(monthOf("2026-11-24")).toEqual({ from: "2026-11-01", to: "2026-11-30" });
    expect(monthOf("2028-02-10")).toEqual({ from: "2028-02-01", to: "2028-02-29" });
  });
});
