import { hasError, parsePix } from "pix-utils";
import { describe, expect, test } from "vitest";
import { buildBrCode } from "../../src/pix/brcode.js";
import { buildRecurrenceBrCode, recurrenceLocation, withRecurrence } from "../../src/pix/recurrence-brcode.js";

// The BR Codes of Pix Automático read back by two parsers written apart from the builder: pix-utils
// (a library that knows field 80, `urlRec`) and a TLV reader and CRC16 written here from the EMV
// specification, bit by bit, so neither shares code with what is tested.

/** The EMV fields of `text` in order: id and value. */
function emvFields(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let at = 0;
  while (at < text.length) {
    const id = text.slice(at, at + 2);
    const length = Number.parseInt(text.slice(at + 2, at + 4), 10);
    out.push([id, text.slice(at + 4, at + 4 + length)]);
    at += 4 + length;
  }
  expect(at).toBe(text.length);
  return out;
}

/** CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF), one bit at a time over the ASCII bytes. */
function crc(text: string): string {
  let value = 0xffff;
  for (const byte of Buffer.from(text, "ascii")) {
    value ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) value = value & 0x8000 ? ((value << 1) ^ 0x1021) & 0xffff : (value << 1) & 0xffff;
  }
  return value.toString(16).toUpperCase().padStart(4, "0");
}

const location = "pix.example.com.br/checkout/recurrences/rec_5Hn7Jp9Lr1Tv3Xz5Bd7F";
const merchant = { merchantName: "Academia Forma Ltda", merchantCity: "São Paulo" };

describe("the BR Code of a journey 2 recurrence", () => {
  const code = buildRecurrenceBrCode({ ...merchant, location });

  test("when it is read field by field, then it is the manual's layout: a Pix template with only its GUI, no amount, txid ***, and template 80 with the GUI and the location, then the CRC", () => {
    const fields = emvFields(code);

    expect(fields.map(([id]) => id)).toEqual(["00", "26", "52", "53", "58", "59", "60", "62", "80", "63"]);
    expect(Object.fromEntries(fields)).toMatchObject({
      "00": "01",
      "26": "0014br.gov.bcb.pix",
      "52": "0000",
      "53": "986",
      "58": "BR",
      "59": "ACADEMIA FORMA LTDA",
      "60": "SAO PAULO",
      "62": "0503***",
    });
    const template = Object.fromEntries(emvFields(Object.fromEntries(fields)["80"] as string));
    expect(template).toEqual({ "00": "br.gov.bcb.pix", "25": location });
    expect(code.slice(-4)).toBe(crc(code.slice(0, -4)));
  });

  test("when pix-utils parses it, then it is a RECURRENCE whose urlRec is the location", () => {
    const parsed = parsePix(code);
    expect(hasError(parsed)).toBe(false);
    expect(parsed).toMatchObject({
      type: "RECURRENCE",
      merchantName: "ACADEMIA FORMA LTDA",
      merchantCity: "SAO PAULO",
      urlRec: location,
    });
    expect(recurrenceLocation(code)).toBe(location);
  });

  test("when one character of it changes, then its CRC no longer matches", () => {
    const damaged = code.replace("rec_5Hn7", "rec_5Hn8");
    expect(damaged.slice(-4)).not.toBe(crc(damaged.slice(0, -4)));
  });
});

describe("the BR Code of a journey 3 recurrence", () => {
  const charge = buildBrCode({
    pixKey: "7d9f0335-8dcc-4054-9bf9-0dbd61d36906",
    ...merchant,
    amountCents: 4990,
    txid: "txn9Wb1Xc3Yd5Ze7Af9Bg1C",
  });
  const code = withRecurrence(charge, location);

  test("when it is read, then it carries the immediate charge's fields and template 80 before a new CRC", () => {
    const fields = emvFields(code);
    expect(fields.map(([id]) => id)).toEqual(["00", "26", "52", "53", "54", "58", "59", "60", "62", "80", "63"]);
    expect(code.startsWith(charge.slice(0, -8))).toBe(true);
    expect(code.slice(-4)).toBe(crc(code.slice(0, -4)));
    expect(parsePix(code)).toMatchObject({
      pixKey: "7d9f0335-8dcc-4054-9bf9-0dbd61d36906",
      transactionAmount: 49.9,
      txid: "txn9Wb1Xc3Yd5Ze7Af9Bg1C",
      urlRec: location,
    });
  });
});

describe("refused locations", () => {
  test.each([
    { name: "with its scheme", value: `https://${location}` },
    { name: "longer than 77 characters", value: `${"a".repeat(60)}.example/${"b".repeat(20)}` },
    { name: "empty", value: "" },
    { name: "with a space", value: "pix.example.com.br/a b" },
  ])("when the location is $name, then the code is not built", ({ value }) => {
    expect(() => buildRecurrenceBrCode({ ...merchant, location: value })).toThrow(RangeError);
  });
});
