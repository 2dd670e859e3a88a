import { cnpj as cnpjLib } from "cpf-cnpj-validator";
import { describe, expect, test } from "vitest";
import {
  type DocumentType,
  documentMatchesType,
  formatDocument,
  maskPixKey,
  type NormalizePixKeyResult,
  normalizePixKey,
  type ParseDocumentResult,
  type PixKeyType,
  parseDocument,
} from "./documents.js";

/**
 * Alphanumeric CNPJs used below. "12ABC34501DE35" is the Receita Federal's own
 * example; the others were computed with the official modulo-11 algorithm
 * (letters worth their ASCII code minus 48) and checked against the library.
 */
const ALPHANUMERIC_CNPJ_RFB_EXAMPLE = "12ABC34501DE35";
const ALPHANUMERIC_CNPJ_COMPUTED = "A1B2C3D4000193";
const ALPHANUMERIC_CNPJ_COMPUTED_2 = "PX9ZQ7K2000132";

describe("parseDocument", () => {
  test.each<{ name: string; input: string; expected: ParseDocumentResult }>([
    {
      name: "when a punctuated valid CPF is given, then it is accepted as CPF without punctuation",
      input: "529.982.247-25",
      expected: { ok: true, documentType: "CPF", document: "52998224725" },
    },
    {
      name: "when a bare valid CPF is given, then it is accepted as CPF",
      input: "11144477735",
      expected: { ok: true, documentType: "CPF", document: "11144477735" },
    },
    {
      name: "when a CPF has spaces around and inside, then they are stripped",
      input: " 111 444 777 35 ",
      expected: { ok: true, documentType: "CPF", document: "11144477735" },
    },
    {
      name: "when a CPF has a wrong last check digit, then CHECK_DIGITS",
      input: "529.982.247-26",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when a CPF has a wrong first check digit, then CHECK_DIGITS",
      input: "111.444.777-45",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when a CPF is one repeated digit, then CHECK_DIGITS",
      input: "111.111.111-11",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when a CPF is all zeros, then CHECK_DIGITS",
      input: "00000000000",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when the placeholder CPF 123.456.789-09 is given, then CHECK_DIGITS (library blacklist)",
      input: "123.456.789-09",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when a punctuated valid CNPJ is given, then it is accepted as CNPJ",
      input: "11.222.333/0001-81",
      expected: { ok: true, documentType: "CNPJ", document: "11222333000181" },
    },
    {
      name: "when a bare valid CNPJ is given, then it is accepted as CNPJ",
      input: "11444777000161",
      expected: { ok: true, documentType: "CNPJ", document: "11444777000161" },
    },
    {
      name: "when a CNPJ has a wrong check digit, then CHECK_DIGITS",
      input: "11.222.333/0001-82",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when a CNPJ is one repeated digit, then CHECK_DIGITS",
      input: "11.111.111/1111-11",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when the Receita Federal alphanumeric CNPJ example is given punctuated, then it is accepted",
      input: "12.ABC.345/01DE-35",
      expected: { ok: true, documentType: "CNPJ", document: ALPHANUMERIC_CNPJ_RFB_EXAMPLE },
    },
    {
      name: "when a computed alphanumeric CNPJ is given bare, then it is accepted",
      input: ALPHANUMERIC_CNPJ_COMPUTED,
      expected: { ok: true, documentType: "CNPJ", document: ALPHANUMERIC_CNPJ_COMPUTED },
    },
    {
      name: "when an alphanumeric CNPJ is given in lower case, then it is accepted and upper-cased",
      input: "px.9zq.7k2/0001-32",
      expected: { ok: true, documentType: "CNPJ", document: ALPHANUMERIC_CNPJ_COMPUTED_2 },
    },
    {
      name: "when an alphanumeric CNPJ has a wrong check digit, then CHECK_DIGITS",
      input: "12.ABC.345/01DE-36",
      expected: { ok: false, reason: "CHECK_DIGITS" },
    },
    {
      name: "when an alphanumeric CNPJ has letters in the check digits, then FORMAT",
      input: "12ABC34501DE3A",
      expected: { ok: false, reason: "FORMAT" },
    },
    {
      name: "when an 11-character value contains a letter, then FORMAT",
      input: "5299822472A",
      expected: { ok: false, reason: "FORMAT" },
    },
    {
      name: "when the value has 10 digits, then FORMAT",
      input: "5299822472",
      expected: { ok: false, reason: "FORMAT" },
    },
    {
      name: "when the value has 12 digits, then FORMAT",
      input: "529982247250",
      expected: { ok: false, reason: "FORMAT" },
    },
    {
      name: "when the value has 15 characters, then FORMAT",
      input: "11.222.333/0001-810",
      expected: { ok: false, reason: "FORMAT" },
    },
    {
      name: "when a valid CPF carries an unexpected symbol, then FORMAT instead of silently dropping it",
      input: "529.982.247-25!",
      expected: { ok: false, reason: "FORMAT" },
    },
    {
      name: "when the value is empty, then FORMAT",
      input: "",
      expected: { ok: false, reason: "FORMAT" },
    },
  ])("$name", ({ input, expected }) => {
    expect(parseDocument(input)).toEqual(expected);
  });

  test("when the hard-coded alphanumeric CNPJs are checked by the library, then the library agrees they are valid", () => {
    expect(
      [ALPHANUMERIC_CNPJ_RFB_EXAMPLE, ALPHANUMERIC_CNPJ_COMPUTED, ALPHANUMERIC_CNPJ_COMPUTED_2].map((value) =>
        cnpjLib.isValid(value),
      ),
    ).toEqual([true, true, true]);
  });

  test("when the library generates alphanumeric CNPJs, then parseDocument accepts every one as CNPJ", () => {
    const generated = Array.from({ length: 50 }, () => cnpjLib.generate());
    const results = generated.map((value) => parseDocument(value));
    expect(results).toEqual(generated.map((document) => ({ ok: true, documentType: "CNPJ", document })));
  });
});

describe("documentMatchesType", () => {
  test.each<{ name: string; input: { document: string; documentType: DocumentType }; expected: boolean }>([
    {
      name: "when a valid CPF is checked as CPF, then true",
      input: { document: "529.982.247-25", documentType: "CPF" },
      expected: true,
    },
    {
      name: "when a valid CPF is checked as CNPJ, then false",
      input: { document: "529.982.247-25", documentType: "CNPJ" },
      expected: false,
    },
    {
      name: "when a valid CNPJ is checked as CNPJ, then true",
      input: { document: "11222333000181", documentType: "CNPJ" },
      expected: true,
    },
    {
      name: "when a valid CNPJ is checked as CPF, then false",
      input: { document: "11222333000181", documentType: "CPF" },
      expected: false,
    },
    {
      name: "when an alphanumeric CNPJ is checked as CNPJ, then true",
      input: { document: "12abc34501de35", documentType: "CNPJ" },
      expected: true,
    },
    {
      name: "when a CPF with wrong check digits is checked as CPF, then false",
      input: { document: "52998224726", documentType: "CPF" },
      expected: false,
    },
  ])("$name", ({ input, expected }) => {
    expect(documentMatchesType(input.document, input.documentType)).toBe(expected);
  });
});

describe("formatDocument", () => {
  test.each<{ name: string; input: { document: string; documentType: DocumentType }; expected: string }>([
    {
      name: "when a bare CPF is formatted, then it gets dots and a dash",
      input: { document: "12345678909", documentType: "CPF" },
      expected: "123.456.789-09",
    },
    {
      name: "when an already formatted CPF is formatted, then it is unchanged",
      input: { document: "529.982.247-25", documentType: "CPF" },
      expected: "529.982.247-25",
    },
    {
      name: "when a bare CNPJ is formatted, then it gets dots, a slash and a dash",
      input: { document: "12345678000195", documentType: "CNPJ" },
      expected: "12.345.678/0001-95",
    },
    {
      name: "when a lower-case alphanumeric CNPJ is formatted, then it is upper-cased and punctuated",
      input: { document: "12abc34501de35", documentType: "CNPJ" },
      expected: "12.ABC.345/01DE-35",
    },
  ])("$name", ({ input, expected }) => {
    expect(formatDocument(input.document, input.documentType)).toBe(expected);
  });

  test.each<{ name: string; input: { document: string; documentType: DocumentType } }>([
    {
      name: "when a CNPJ is formatted as CPF, then it throws",
      input: { document: "11222333000181", documentType: "CPF" },
    },
    {
      name: "when a CPF is formatted as CNPJ, then it throws",
      input: { document: "52998224725", documentType: "CNPJ" },
    },
    {
      name: "when a CPF with a letter is formatted, then it throws",
      input: { document: "5299822472A", documentType: "CPF" },
    },
  ])("$name", ({ input }) => {
    expect(() => formatDocument(input.document, input.documentType)).toThrow(RangeError);
  });
});

describe("normalizePixKey", () => {
  test.each<{ name: string; input: { key: string; type: PixKeyType }; expected: NormalizePixKeyResult }>([
    {
      name: "when a punctuated CPF key is given as CPF, then it is returned bare",
      input: { key: "529.982.247-25", type: "CPF" },
      expected: { ok: true, key: "52998224725" },
    },
    {
      name: "when a CPF key has wrong check digits, then it is refused",
      input: { key: "529.982.247-26", type: "CPF" },
      expected: { ok: false },
    },
    {
      name: "when a CNPJ is given as a CPF key, then it is refused",
      input: { key: "11.222.333/0001-81", type: "CPF" },
      expected: { ok: false },
    },
    {
      name: "when a CPF is given as a CNPJ key, then it is refused",
      input: { key: "529.982.247-25", type: "CNPJ" },
      expected: { ok: false },
    },
    {
      name: "when a lower-case alphanumeric CNPJ key is given, then it is returned upper-cased",
      input: { key: "12.abc.345/01de-35", type: "CNPJ" },
      expected: { ok: true, key: "12ABC34501DE35" },
    },
    {
      name: "when a phone key has +55 and punctuation, then it is returned as +55 and digits",
      input: { key: "+55 (11) 98765-4321", type: "PHONE" },
      expected: { ok: true, key: "+5511987654321" },
    },
    {
      name: "when a phone key has no country code, then +55 is added",
      input: { key: "(21) 99876-5432", type: "PHONE" },
      expected: { ok: true, key: "+5521998765432" },
    },
    {
      name: "when a phone key has the country code without a plus sign, then it is normalized",
      input: { key: "5511987654321", type: "PHONE" },
      expected: { ok: true, key: "+5511987654321" },
    },
    {
      name: "when a phone key is an 11-digit number in area code 55, then 55 is read as the area code",
      input: { key: "55987654321", type: "PHONE" },
      expected: { ok: true, key: "+5555987654321" },
    },
    {
      name: "when a phone key is a 10-digit landline, then it is accepted",
      input: { key: "+55 11 3456-7890", type: "PHONE" },
      expected: { ok: true, key: "+551134567890" },
    },
    {
      name: "when a phone key has a foreign country code, then it is refused",
      input: { key: "+1 415 555 0100", type: "PHONE" },
      expected: { ok: false },
    },
    {
      name: "when a phone key has too few digits, then it is refused",
      input: { key: "+55 11 98765-432", type: "PHONE" },
      expected: { ok: false },
    },
    {
      name: "when a phone key has too many digits, then it is refused",
      input: { key: "+55 11 98765-43210", type: "PHONE" },
      expected: { ok: false },
    },
    {
      name: "when a phone key has an area code with a zero, then it is refused",
      input: { key: "+55 01 98765-4321", type: "PHONE" },
      expected: { ok: false },
    },
    {
      name: "when a phone key contains letters, then it is refused",
      input: { key: "+55 11 9876A-4321", type: "PHONE" },
      expected: { ok: false },
    },
    {
      name: "when an e-mail key has upper case and spaces around, then it is trimmed and lower-cased",
      input: { key: "  Joao.Silva@Example.COM ", type: "EMAIL" },
      expected: { ok: true, key: "joao.silva@example.com" },
    },
    {
      name: "when an e-mail key has a plus tag, then it is accepted",
      input: { key: "pix+loja@example.com.br", type: "EMAIL" },
      expected: { ok: true, key: "pix+loja@example.com.br" },
    },
    {
      name: "when an e-mail key is exactly 77 characters, then it is accepted",
      input: { key: `${"a".repeat(63)}@example.co.uk`, type: "EMAIL" },
      expected: { ok: true, key: `${"a".repeat(63)}@example.co.uk` },
    },
    {
      name: "when an e-mail key is 78 characters, then it is refused",
      input: { key: `${"a".repeat(64)}@example.co.uk`, type: "EMAIL" },
      expected: { ok: false },
    },
    {
      name: "when an e-mail key has no @, then it is refused",
      input: { key: "joao.example.com", type: "EMAIL" },
      expected: { ok: false },
    },
    {
      name: "when an e-mail key has two @, then it is refused",
      input: { key: "joao@silva@example.com", type: "EMAIL" },
      expected: { ok: false },
    },
    {
      name: "when an e-mail key has no dot in the domain, then it is refused",
      input: { key: "joao@localhost", type: "EMAIL" },
      expected: { ok: false },
    },
    {
      name: "when an e-mail key has a space inside, then it is refused",
      input: { key: "joao silva@example.com", type: "EMAIL" },
      expected: { ok: false },
    },
    {
      name: "when an e-mail key has consecutive dots, then it is refused",
      input: { key: "joao..silva@example.com", type: "EMAIL" },
      expected: { ok: false },
    },
    {
      name: "when an upper-case UUID is given as EVP, then it is lower-cased",
      input: { key: "123E4567-E89B-12D3-A456-426614174000", type: "EVP" },
      expected: { ok: true, key: "123e4567-e89b-12d3-a456-426614174000" },
    },
    {
      name: "when an EVP key has no dashes, then it is refused",
      input: { key: "123e4567e89b12d3a456426614174000", type: "EVP" },
      expected: { ok: false },
    },
    {
      name: "when an EVP key has a non-hex character, then it is refused",
      input: { key: "123e4567-e89b-12d3-a456-42661417400g", type: "EVP" },
      expected: { ok: false },
    },
  ])("$name", ({ input, expected }) => {
    expect(normalizePixKey(input.key, input.type)).toEqual(expected);
  });
});

describe("maskPixKey", () => {
  test.each<{ name: string; input: { key: string; type: PixKeyType }; expected: string }>([
    {
      name: "when a CPF key is masked, then only the middle six digits show",
      input: { key: "111.444.777-35", type: "CPF" },
      expected: "***.444.777-**",
    },
    {
      name: "when a bare CPF key is masked, then it is punctuated and only the middle shows",
      input: { key: "52998224725", type: "CPF" },
      expected: "***.982.247-**",
    },
    {
      name: "when a CNPJ key is masked, then six of fourteen characters show",
      input: { key: "11.222.333/0001-81", type: "CNPJ" },
      expected: "**.222.333/****-**",
    },
    {
      name: "when an e-mail key is masked, then two local characters and the domain show",
      input: { key: "joao@example.com", type: "EMAIL" },
      expected: "jo***@example.com",
    },
    {
      name: "when an e-mail key has a two-character local part, then only one character shows",
      input: { key: "jo@example.com", type: "EMAIL" },
      expected: "j***@example.com",
    },
    {
      name: "when an e-mail key has a one-character local part, then no local character shows",
      input: { key: "J@Example.com", type: "EMAIL" },
      expected: "***@example.com",
    },
    {
      name: "when a mobile phone key is masked, then area code, first and last four digits show",
      input: { key: "+5511987651234", type: "PHONE" },
      expected: "+55 11 9****-1234",
    },
    {
      name: "when a landline phone key is masked, then three middle digits are hidden",
      input: { key: "(11) 3456-7890", type: "PHONE" },
      expected: "+55 11 3***-7890",
    },
    {
      name: "when an EVP key is masked, then the first eight and last four characters show",
      input: { key: "123E4567-E89B-12D3-A456-426614174000", type: "EVP" },
      expected: "123e4567-****-****-****-********4000",
    },
    {
      name: "when a key is invalid for its type, then only the first and last quarter show",
      input: { key: "not-a-cpf-at-all", type: "CPF" },
      expected: "not-********-all",
    },
  ])("$name", ({ input, expected }) => {
    expect(maskPixKey(input.key, input.type)).toBe(expected);
  });

  test.each<{ name: string; input: { key: string; type: PixKeyType } }>([
    { name: "when a CPF is masked, then at most half of it is readable", input: { key: "52998224725", type: "CPF" } },
    {
      name: "when a CNPJ is masked, then at most half of it is readable",
      input: { key: "11222333000181", type: "CNPJ" },
    },
    {
      name: "when an EVP is masked, then at most half of it is readable",
      input: { key: "123e4567-e89b-12d3-a456-426614174000", type: "EVP" },
    },
    {
      name: "when a long e-mail is masked, then at most half of its local part is readable",
      input: { key: "joaosilva@example.com", type: "EMAIL" },
    },
    {
      name: "when an invalid key is masked, then at most half of it is readable",
      input: { key: "abcdefghij", type: "EVP" },
    },
  ])("$name", ({ input }) => {
    const masked = maskPixKey(input.key, input.type);
    const secret = input.type === "EMAIL" ? input.key.slice(0, input.key.indexOf("@")) : input.key;
    const shownSecret = input.type === "EMAIL" ? masked.slice(0, masked.indexOf("@")) : masked;
    const secretCharacters = secret.replace(/[^0-9A-Za-z]/g, "").length;
    const revealed = shownSecret.replace(/[^0-9A-Za-z]/g, "").length;
    expect(revealed).toBeGreaterThan(0);
    expect(revealed).toBeLessThanOrEqual(Math.ceil(secretCharacters / 2));
  });
});
