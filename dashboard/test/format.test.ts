import { describe, expect, test } from "vitest";
import {
  brasiliaDay,
  brasiliaDayStart,
  describeUserAgent,
  formatCount,
  formatDate,
  formatDateTime,
  formatDocument,
  formatMoney,
  formatMoneyShort,
  parseMoneyInput,
} from "../src/lib/format";

// The dashboard writes money as `R$ 1.234,56` and times in Brasília (issue 26).

const nbsp = "\u00a0";

describe("money", () => {
  test("when cents are written, then they read as reais with the pt-BR separators", () => {
    expect(formatMoney(123456)).toBe(`R$${nbsp}1.234,56`);
    expect(formatMoney(5)).toBe(`R$${nbsp}0,05`);
    expect(formatMoney(0)).toBe(`R$${nbsp}0,00`);
    expect(formatMoney(100000000)).toBe(`R$${nbsp}1.000.000,00`);
    expect(formatMoney(-2990)).toBe(`-R$${nbsp}29,90`);
    expect(formatCount(12345)).toBe("12.345");
  });

  test("when money labels a chart's axis, then it is short: thousands as mil, millions as mi", () => {
    expect(formatMoneyShort(50_000_000)).toBe(`R$${nbsp}500${nbsp}mil`);
    expect(formatMoneyShort(123_456_789)).toBe(`R$${nbsp}1,2${nbsp}mi`);
    expect(formatMoneyShort(50_000)).toBe(`R$${nbsp}500`);
    expect(formatMoneyShort(0)).toBe(`R$${nbsp}0`);
  });

  test("when a person types an amount, then it becomes cents, or null when it is none", () => {
    expect(parseMoneyInput("1.234,56")).toBe(123456);
    expect(parseMoneyInput("R$ 49,90")).toBe(4990);
    expect(parseMoneyInput("10")).toBe(1000);
    expect(parseMoneyInput("10.5")).toBe(1050);
    expect(parseMoneyInput("1.000")).toBe(100000);
    expect(parseMoneyInput("0,001")).toBeNull();
    expect(parseMoneyInput("0")).toBeNull();
    expect(parseMoneyInput("abc")).toBeNull();
    expect(parseMoneyInput("")).toBeNull();
  });
});

describe("dates", () => {
  test("when an instant is written, then it is the Brasília day and time, 24 hours", () => {
    expect(formatDateTime("2026-11-24T18:30:00.000Z")).toBe("24/11/2026 15:30");
    expect(formatDateTime("2026-11-25T02:59:00.000Z")).toBe("24/11/2026 23:59");
    expect(formatDateTime("2026-11-25T03:00:00.000Z")).toBe("25/11/2026 00:00");
    expect(formatDate("2026-11-25T02:59:00.000Z")).toBe("24/11/2026");
    expect(formatDateTime(null)).toBe("—");
    expect(formatDateTime("not a date")).toBe("—");
  });

  test("when a Brasília day is asked, then it starts at 03:00 UTC and an instant falls in its own day", () => {
    expect(brasiliaDayStart("2026-11-24")).toBe("2026-11-24T03:00:00.000Z");
    expect(brasiliaDay(new Date("2026-11-25T02:59:59.999Z"))).toBe("2026-11-24");
    expect(brasiliaDay(new Date("2026-11-25T03:00:00.000Z"))).toBe("2026-11-25");
  });
});

describe("documents and devices", () => {
  test("when a CPF or CNPJ is written, then it has its punctuation", () => {
    expect(formatDocument("52998224725")).toBe("529.982.247-25");
    expect(formatDocument("11222333000181")).toBe("11.222.333/0001-81");
    expect(formatDocument(null)).toBe("—");
  });

  test("when a session's User-Agent is shown, then it names the browser and the system", () => {
    const chrome =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36";
    expect(describeUserAgent(chrome)).toBe("Chrome no Linux");
    expect(describeUserAgent("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1")).toBe(
      "Safari no iOS",
    );
    expect(describeUserAgent("curl/8.5.0")).toBe("curl");
    expect(describeUserAgent(null)).toBe("Desconhecido");
  });
});
