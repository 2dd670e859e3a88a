import fc from "fast-check";
import { createStaticPix, hasError } from "pix-utils";
import { describe, expect, test } from "vitest";
import {
  type BrCodeInput,
  BrCodeParseError,
  brCodeMerchantCity,
  brCodeMerchantName,
  buildBrCode,
  crc16Ccitt,
  foldToAscii,
  MAX_AMOUNT_CENTS,
  type ParsedBrCode,
  parseBrCode,
  sanitizeTxid,
} from "./brcode.js";

const BASE: BrCodeInput = {
  pixKey: "52998224725",
  merchantName: "Loja Exemplo",
  merchantCity: "Curitiba",
  amountCents: 8990,
  txid: "CHG0001",
};

/** Example static BR Code printed in the Central Bank's "Manual de Padrões para Iniciação do Pix". */
const BCB_MANUAL_EXAMPLE =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";

/** Replaces the character at `index` with a different one of the same kind, keeping the TLV structure intact. */
function flipCharacter(code: string, index: number): string {
  const original = code.charAt(index);
  const replacement = /\d/.test(original) ? String((Number(original) + 1) % 10) : original === "A" ? "B" : "A";
  return `${code.slice(0, index)}${replacement}${code.slice(index + 1)}`;
}

describe("buildBrCode round trip through the independent parser", () => {
  test.each<{ name: string; input: Partial<BrCodeInput>; expected: ParsedBrCode }>([
    {
      name: "when a plain charge is built, then every field reads back and the CRC is valid",
      input: {},
      expected: {
        pixKey: "52998224725",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the name and city have accents, then they are folded to upper-case ASCII",
      input: { merchantName: "Padaria São João", merchantCity: "São Paulo" },
      expected: {
        pixKey: "52998224725",
        merchantName: "PADARIA SAO JOAO",
        merchantCity: "SAO PAULO",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the name is longer than 25 characters, then it is cut to 25",
      input: { merchantName: "Padaria e Confeitaria Pão de Açúcar Ltda" },
      expected: {
        pixKey: "52998224725",
        merchantName: "PADARIA E CONFEITARIA PAO",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the city is longer than 15 characters, then it is cut to 15",
      input: { merchantCity: "São José dos Campos" },
      expected: {
        pixKey: "52998224725",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "SAO JOSE DOS CA",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when cutting the city leaves a trailing space, then the space is dropped",
      input: { merchantCity: "Embu das Artes Grande" },
      expected: {
        pixKey: "52998224725",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "EMBU DAS ARTES",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the name is in decomposed Unicode (NFD) and 25 letters long, then it still fits",
      input: { merchantName: "Jose\u0301 Conceic\u0327a\u0303o Araujo Fil" },
      expected: {
        pixKey: "52998224725",
        merchantName: "JOSE CONCEICAO ARAUJO FIL",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the name has letters Unicode cannot decompose, then they are spelled out in ASCII",
      input: { merchantName: "Straße Æsir Øre", merchantCity: "Łódź" },
      expected: {
        pixKey: "52998224725",
        merchantName: "STRASSE AESIR ORE",
        merchantCity: "LODZ",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the txid has punctuation, then only letters and digits are kept",
      input: { txid: "order-2024_05/ABC" },
      expected: {
        pixKey: "52998224725",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "order202405ABC",
        crcValid: true,
      },
    },
    {
      name: "when the txid is longer than 25 characters, then it is cut to 25",
      input: { txid: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" },
      expected: {
        pixKey: "52998224725",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "ABCDEFGHIJKLMNOPQRSTUVWXY",
        crcValid: true,
      },
    },
    {
      name: "when the txid has no letters or digits, then the no-identifier value *** is written",
      input: { txid: "---" },
      expected: {
        pixKey: "52998224725",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "***",
        crcValid: true,
      },
    },
    {
      name: "when the key is a 77-character e-mail, then the account template still fits and reads back",
      input: { pixKey: `${"a".repeat(63)}@example.co.uk` },
      expected: {
        pixKey: `${"a".repeat(63)}@example.co.uk`,
        merchantName: "LOJA EXEMPLO",
        merchantCity: "CURITIBA",
        amountCents: 8990,
        txid: "CHG0001",
        crcValid: true,
      },
    },
    {
      name: "when the amount is the largest allowed, then it reads back exactly",
      input: { amountCents: MAX_AMOUNT_CENTS, pixKey: "123e4567-e89b-12d3-a456-426614174000" },
      expected: {
        pixKey: "123e4567-e89b-12d3-a456-426614174000",
        merchantName: "LOJA EXEMPLO",
        merchantCity: "CURITIBA",
        amountCents: MAX_AMOUNT_CENTS,
        txid: "CHG0001",
        crcValid: true,
      },
    },
  ])("$name", ({ input, expected }) => {
    expect(parseBrCode(buildBrCode({ ...BASE, ...input }))).toEqual(expected);
  });
});

describe("buildBrCode amount field", () => {
  test.each<{ name: string; input: number; expected: string }>([
    { name: "when the amount is 8990 cents, then field 54 is 89.90", input: 8990, expected: "540589.90" },
    { name: "when the amount is 1 cent, then field 54 is 0.01", input: 1, expected: "54040.01" },
    { name: "when the amount is 100 cents, then field 54 is 1.00", input: 100, expected: "54041.00" },
    {
      name: "when the amount is 1005 cents, then field 54 is 10.05 without float rounding",
      input: 1005,
      expected: "540510.05",
    },
    {
      name: "when the amount is the maximum, then field 54 is 9999999999.99",
      input: MAX_AMOUNT_CENTS,
      expected: "54139999999999.99",
    },
  ])("$name", ({ input, expected }) => {
    const code = buildBrCode({ ...BASE, amountCents: input });
    expect(code).toContain(`5303986${expected}5802BR`);
  });
});

describe("buildBrCode layout", () => {
  test("when a charge is built, then the code starts with the payload format and carries the Pix GUI", () => {
    const code = buildBrCode(BASE);
    expect(code.startsWith("000201")).toBe(true);
    expect(code).toContain("0014br.gov.bcb.pix011152998224725");
    expect(code).toMatch(/6304[0-9A-F]{4}$/);
  });
});

describe("buildBrCode refusals", () => {
  test.each<{ name: string; input: Partial<BrCodeInput>; expected: RegExp }>([
    { name: "when the amount is zero, then it throws", input: { amountCents: 0 }, expected: /amountCents/ },
    { name: "when the amount is negative, then it throws", input: { amountCents: -100 }, expected: /amountCents/ },
    {
      name: "when the amount has a fraction of a cent, then it throws",
      input: { amountCents: 89.9 },
      expected: /amountCents/,
    },
    { name: "when the amount is NaN, then it throws", input: { amountCents: Number.NaN }, expected: /amountCents/ },
    {
      name: "when the amount is infinite, then it throws",
      input: { amountCents: Number.POSITIVE_INFINITY },
      expected: /amountCents/,
    },
    {
      name: "when the amount does not fit 13 characters, then it throws",
      input: { amountCents: MAX_AMOUNT_CENTS + 1 },
      expected: /amountCents/,
    },
    { name: "when the Pix key is empty, then it throws", input: { pixKey: "" }, expected: /pixKey/ },
    {
      name: "when the Pix key is longer than 77 characters, then it throws",
      input: { pixKey: `${"a".repeat(64)}@example.co.uk` },
      expected: /pixKey/,
    },
    {
      name: "when the Pix key contains a space, then it throws",
      input: { pixKey: "joao silva@example.com" },
      expected: /pixKey/,
    },
    {
      name: "when the name has nothing printable, then it throws",
      input: { merchantName: "😀 ✓" },
      expected: /merchantName/,
    },
    { name: "when the city is blank, then it throws", input: { merchantCity: "   " }, expected: /merchantCity/ },
  ])("$name", ({ input, expected }) => {
    expect(() => buildBrCode({ ...BASE, ...input })).toThrow(expected);
  });
});

describe("parseBrCode checksum", () => {
  const code = buildBrCode(BASE);

  test.each<{ name: string; input: string; expected: boolean }>([
    { name: "when the code is untouched, then the CRC is valid", input: code, expected: true },
    {
      name: "when the CRC hex digits are lower-cased, then the CRC is still valid",
      input: `${code.slice(0, -4)}${code.slice(-4).toLowerCase()}`,
      expected: true,
    },
    {
      name: "when one character of the merchant name is flipped, then the CRC is invalid",
      input: flipCharacter(code, code.indexOf("LOJA")),
      expected: false,
    },
    {
      name: "when one digit of the amount is flipped, then the CRC is invalid",
      input: flipCharacter(code, code.indexOf("89.90")),
      expected: false,
    },
    {
      name: "when one digit of the Pix key is flipped, then the CRC is invalid",
      input: flipCharacter(code, code.indexOf("52998224725")),
      expected: false,
    },
    {
      name: "when one character of the CRC itself is flipped, then the CRC is invalid",
      input: flipCharacter(code, code.length - 1),
      expected: false,
    },
  ])("$name", ({ input, expected }) => {
    expect(input).toHaveLength(code.length);
    expect(parseBrCode(input).crcValid).toBe(expected);
  });

  test("when the Central Bank manual example is parsed, then its fields and CRC check out", () => {
    expect(parseBrCode(BCB_MANUAL_EXAMPLE)).toEqual({
      pixKey: "123e4567-e12b-12d1-a456-426655440000",
      merchantName: "Fulano de Tal",
      merchantCity: "BRASILIA",
      amountCents: null,
      txid: "***",
      crcValid: true,
    });
  });
});

describe("parseBrCode refusals", () => {
  const code = buildBrCode(BASE);

  test.each<{ name: string; input: string }>([
    { name: "when the text is not EMV at all, then it throws", input: "hello world" },
    { name: "when the text is empty, then it throws", input: "" },
    { name: "when the code is truncated, then it throws", input: code.slice(0, -10) },
    { name: "when the CRC field is missing, then it throws", input: code.slice(0, -8) },
    { name: "when the payload format indicator is missing, then it throws", input: code.slice(6) },
    {
      name: "when the account template is not for Pix, then it throws",
      input: code.replace("br.gov.bcb.pix", "br.gov.bcb.xyz"),
    },
    {
      name: "when the CRC field is not hexadecimal, then it throws",
      input: `${code.slice(0, -4)}ZZZZ`,
    },
  ])("$name", ({ input }) => {
    expect(() => parseBrCode(input)).toThrow(BrCodeParseError);
  });
});

describe("crc16Ccitt", () => {
  test.each<{ name: string; input: string; expected: string }>([
    {
      name: "when the standard check string 123456789 is hashed, then it gives 29B1",
      input: "123456789",
      expected: "29B1",
    },
    { name: "when the empty string is hashed, then it gives the initial value FFFF", input: "", expected: "FFFF" },
    {
      name: "when the Central Bank example payload is hashed, then it gives its printed CRC 1D3D",
      input: BCB_MANUAL_EXAMPLE.slice(0, -4),
      expected: "1D3D",
    },
  ])("$name", ({ input, expected }) => {
    expect(crc16Ccitt(input)).toBe(expected);
  });
});

describe("foldToAscii and sanitizeTxid", () => {
  test.each<{ name: string; input: string; expected: string }>([
    { name: "when São Paulo is folded, then it becomes SAO PAULO", input: "São Paulo", expected: "SAO PAULO" },
    {
      name: "when cedilla and tilde are folded, then the base letters remain",
      input: "Açaí & Maçã",
      expected: "ACAI & MACA",
    },
    {
      name: "when text has tabs, emoji and repeated spaces, then they collapse to single spaces",
      input: " Bar\t do  Zé 🍺 ",
      expected: "BAR DO ZE",
    },
    { name: "when a ligature is folded, then it is spelled out", input: "ﬁlé", expected: "FILE" },
  ])("$name", ({ input, expected }) => {
    expect(foldToAscii(input)).toBe(expected);
  });

  test.each<{ name: string; input: string; expected: string }>([
    {
      name: "when a txid has dashes and accented letters, then those characters are dropped, not folded",
      input: "pedido-ção-42",
      expected: "pedidoo42",
    },
    { name: "when a txid is 30 characters, then it is cut to 25", input: "a".repeat(30), expected: "a".repeat(25) },
  ])("$name", ({ input, expected }) => {
    expect(sanitizeTxid(input)).toBe(expected);
  });
});

describe("buildBrCode checksum", () => {
  test.each([
    { name: "a txid ending in 6304", txid: "txn6304" },
    { name: "a txid ending in 6304 and four more characters", txid: "txn6304ABCD" },
    { name: "a txid that is 63046304", txid: "63046304" },
  ])("when $name, then the CRC is still valid (pix-utils alone gets it wrong)", ({ txid }) => {
    const code = buildBrCode({
      pixKey: "7d9f0335-8dcc-4054-9bf9-0dbd61d36906",
      merchantName: "Loja Exemplo",
      merchantCity: "Sao Paulo",
      amountCents: 7304,
      txid,
    });
    expect(parseBrCode(code)).toMatchObject({ crcValid: true, txid, amountCents: 7304 });
  });
});

/**
 * The static code as pix-utils 2.8.2 assembles it from the same folded name and city and
 * sanitized txid, with the CRC computed here (pix-utils' own is wrong after a txid ending in
 * `6304…`): what `buildBrCode` returned before it assembled codes itself (record 0064).
 */
function pixUtilsCode(input: BrCodeInput): string {
  const txid = sanitizeTxid(input.txid);
  const pix = createStaticPix({
    pixKey: input.pixKey,
    merchantName: brCodeMerchantName(input.merchantName),
    merchantCity: brCodeMerchantCity(input.merchantCity),
    transactionAmount: input.amountCents / 100,
    txid,
  });
  if (hasError(pix)) throw new Error(pix.message);
  const body = pix.toBRCode().slice(0, -4);
  return body + crc16Ccitt(body);
}

describe("buildBrCode against pix-utils", () => {
  /** Names and cities as merchants type them: Latin letters with accents, digits, punctuation, the odd emoji. */
  const text = fc.string({
    unit: fc.constantFrom(..."aAçÇãÃéÉíóôõúüßøæŁ 0123456789-.'&/🙂東", "\u0301"),
    minLength: 1,
    maxLength: 40,
  });
  const printableKey = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 77,
  });

  test("when any valid charge is built, then the code is the one pix-utils assembles, character for character", () => {
    let built = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          printableKey,
          fc.uuid(),
          fc.constant("52998224725"),
          fc.emailAddress().filter((e) => e.length <= 77),
        ),
        text,
        text,
        fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: MAX_AMOUNT_CENTS })),
        fc.string({ maxLength: 40 }),
        (pixKey, merchantName, merchantCity, amountCents, txid) => {
          const input = { pixKey, merchantName, merchantCity, amountCents, txid };
          let code: string;
          try {
            code = buildBrCode(input);
          } catch (error) {
            // A name or city with nothing printable is refused before any code is made.
            expect(error).toBeInstanceOf(RangeError);
            return;
          }
          built++;
          expect(code).toBe(pixUtilsCode(input));
        },
      ),
      { numRuns: 2_000 },
    );
    // Most inputs make a code: the comparison above ran, not only the refusals.
    expect(built).toBeGreaterThan(1_500);
  });

  test("when the largest amount is built, then both write it with its centavos exact", () => {
    const input = { ...BASE, amountCents: MAX_AMOUNT_CENTS };
    expect(buildBrCode(input)).toBe(pixUtilsCode(input));
    expect(parseBrCode(buildBrCode(input)).amountCents).toBe(MAX_AMOUNT_CENTS);
  });
});
