/**
 * Pix "copia e cola" BR Codes: EMV Merchant Presented Mode payloads with the
 * Pix GUI `br.gov.bcb.pix` and a CRC16-CCITT (initial value 0xFFFF) checksum.
 *
 * A static code is assembled here, field by field (docs/decisions/0064-static-br-codes-assembled-here.md):
 * `pix-utils`, which produced them before, is the oracle of a differential test
 * (brcode.test.ts: the same code for every generated input). Every code is read
 * back by an independent, minimal EMV parser before it is returned.
 */

/** What is needed to build a static Pix BR Code for one charge. */
export interface BrCodeInput {
  /** The receiver's Pix key, already normalized (see `normalizePixKey`). */
  pixKey: string;
  /** The receiver's name; accents are removed and it is cut to 25 characters. */
  merchantName: string;
  /** The receiver's city; accents are removed and it is cut to 15 characters. */
  merchantCity: string;
  /** The amount to pay, in centavos: a positive integer. */
  amountCents: number;
  /** The charge identifier; only A-Z, a-z and 0-9 are kept, at most 25 of them. */
  txid: string;
}

/** The fields read back from a Pix BR Code by {@link parseBrCode}. */
export interface ParsedBrCode {
  /** The Pix key (sub-field 01 of the Pix account template), or `null` for a dynamic code. */
  pixKey: string | null;
  /** The merchant name (field 59). */
  merchantName: string;
  /** The merchant city (field 60). */
  merchantCity: string;
  /** The amount in centavos (field 54), or `null` when the payer chooses the amount. */
  amountCents: number | null;
  /** The transaction identifier (sub-field 05 of field 62), or `null` when absent. */
  txid: string | null;
  /** Whether the CRC16 in field 63 matches the one recomputed over the payload. */
  crcValid: boolean;
}

/** Thrown by {@link parseBrCode} when the text is not a well-formed Pix BR Code. */
export class BrCodeParseError extends Error {
  /** Creates the error with a message saying what is wrong with the code. */
  constructor(message: string) {
    super(message);
    this.name = "BrCodeParseError";
  }
}

/** Longest merchant name the BR Code allows (field 59). */
const MERCHANT_NAME_MAX_LENGTH = 25;
/** Longest merchant city the BR Code allows (field 60). */
const MERCHANT_CITY_MAX_LENGTH = 15;
/** Longest transaction identifier a static Pix BR Code allows. */
const TXID_MAX_LENGTH = 25;
/**
 * Largest amount, in centavos, that fits the 13 characters of the amount field
 * ("9999999999.99").
 */
export const MAX_AMOUNT_CENTS = 999_999_999_999;

const PIX_GUI = "br.gov.bcb.pix";
/** The value the Central Bank prescribes for field 62-05 when a static code has no txid. */
const NO_TXID = "***";
const PIX_KEY_MAX_LENGTH = 77;

/** One EMV field: its id, its value's length in two digits, its value (at most 99 characters). */
export function emvField(id: string, value: string): string {
  if (value.length > 99) throw new RangeError(`BR Code field ${id} is longer than 99 characters`);
  return `${id}${value.length < 10 ? "0" : ""}${value.length}${value}`;
}

/** Sub-field 00 of the Pix account template: the GUI. */
const GUI_FIELD = emvField("00", PIX_GUI);

/** An amount in centavos as field 54 writes it: reais, a dot, two digits ("89.90"). */
const amountText = (cents: number): string => {
  const fraction = cents % 100;
  return `${(cents - fraction) / 100}.${fraction < 10 ? "0" : ""}${fraction}`;
};

/** Letters that Unicode does not decompose into a base letter plus an accent. */
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: "ss",
  Æ: "AE",
  æ: "ae",
  Œ: "OE",
  œ: "oe",
  Ø: "O",
  ø: "o",
  Đ: "D",
  đ: "d",
  Ð: "D",
  ð: "d",
  Ł: "L",
  ł: "l",
  Þ: "TH",
  þ: "th",
  ı: "i",
};

/**
 * Turns free text into the upper-case printable ASCII that BR Code text fields
 * accept: accents are removed ("São Paulo" becomes "SAO PAULO"), letters such
 * as "ß" or "Ø" are spelled out, any other character outside printable ASCII
 * becomes a space, and runs of spaces are collapsed and trimmed.
 */
export function foldToAscii(text: string): string {
  const known = foldedTexts.get(text);
  if (known !== undefined) return known;
  const folded = foldUncached(text);
  // Merchant names and cities repeat for every charge of an account: Unicode normalisation was a
  // visible share of creating a charge. Bounded: forgotten wholesale when full.
  if (foldedTexts.size >= FOLDED_TEXTS_MAX) foldedTexts.clear();
  foldedTexts.set(text, folded);
  return folded;
}

const FOLDED_TEXTS_MAX = 10_000;
const foldedTexts = new Map<string, string>();

function foldUncached(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[^\x20-\x7E]/gu, (character) => SPECIAL_LETTERS[character] ?? " ")
    .toUpperCase()
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Reduces a charge identifier to what a static Pix BR Code accepts: only the
 * letters A-Z and a-z and the digits 0-9 are kept, and the result is cut to 25
 * characters. The result may be empty, in which case {@link buildBrCode} writes
 * the Central Bank's "no identifier" value `***`.
 */
export function sanitizeTxid(txid: string): string {
  return txid.replace(/[^A-Za-z0-9]/g, "").slice(0, TXID_MAX_LENGTH);
}

/**
 * A merchant name as the BR Code carries it (field 59): folded with {@link foldToAscii} and cut to
 * 25 characters. Empty when nothing of the name is printable ASCII (`東京商店`, `🙂🙂`).
 */
export const brCodeMerchantName = (name: string): string => foldAndCut(name, MERCHANT_NAME_MAX_LENGTH);

/** A merchant city as the BR Code carries it (field 60): folded and cut to 15 characters; may be empty. */
export const brCodeMerchantCity = (city: string): string => foldAndCut(city, MERCHANT_CITY_MAX_LENGTH);

function foldAndCut(text: string, maxLength: number): string {
  return foldToAscii(text).slice(0, maxLength).trimEnd();
}

function requireText(folded: string, field: string): string {
  if (folded === "") {
    throw new RangeError(`buildBrCode: ${field} is empty after removing unsupported characters`);
  }
  return folded;
}

/**
 * Builds the Pix "copia e cola" text (the content of the QR code) for a static
 * charge with a fixed amount.
 *
 * The fields, in the order of the Central Bank's manual (and of `pix-utils`):
 * payload format 01, the Pix account template (GUI and key), category 0000,
 * currency 986, the amount, country BR, name, city, the txid in field 62, then
 * the CRC. The merchant name and city are folded to upper-case ASCII and cut to
 * 25 and 15 characters, the txid is sanitized with {@link sanitizeTxid} (empty:
 * `***`), and the amount is written with two decimals ("89.90" for 8990). Throws a `RangeError` when
 * the amount is not a positive whole number of centavos up to
 * {@link MAX_AMOUNT_CENTS}, when the Pix key is empty, longer than 77
 * characters or not printable ASCII, or when the name or city is left empty.
 * The produced code is read back with {@link parseBrCode} before it is returned,
 * and an `Error` is thrown if it does not carry exactly what was asked for.
 */
export function buildBrCode(input: BrCodeInput): string {
  const { amountCents } = input;
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > MAX_AMOUNT_CENTS) {
    throw new RangeError(`buildBrCode: amountCents must be a positive integer up to ${MAX_AMOUNT_CENTS}`);
  }
  if (input.pixKey.length === 0 || input.pixKey.length > PIX_KEY_MAX_LENGTH || !/^[\x21-\x7E]+$/.test(input.pixKey)) {
    throw new RangeError("buildBrCode: pixKey must be 1 to 77 printable ASCII characters");
  }
  const merchantName = requireText(brCodeMerchantName(input.merchantName), "merchantName");
  const merchantCity = requireText(brCodeMerchantCity(input.merchantCity), "merchantCity");
  const txid = sanitizeTxid(input.txid);
  const expectedTxid = txid === "" ? NO_TXID : txid;

  const body =
    `000201${emvField("26", GUI_FIELD + emvField("01", input.pixKey))}520400005303986` +
    `${emvField("54", amountText(amountCents))}5802BR${emvField("59", merchantName)}` +
    `${emvField("60", merchantCity)}${emvField("62", emvField("05", expectedTxid))}6304`;
  const code = body + crc16Ccitt(body);

  const check = parseBrCode(code);
  if (
    !check.crcValid ||
    check.pixKey !== input.pixKey ||
    check.merchantName !== merchantName ||
    check.merchantCity !== merchantCity ||
    check.amountCents !== amountCents ||
    check.txid !== expectedTxid
  ) {
    throw new Error(`buildBrCode: the code does not read back as the input: ${code}`);
  }
  return code;
}

/**
 * Computes the CRC16-CCITT checksum (polynomial 0x1021, initial value 0xFFFF,
 * no reflection, no final XOR) of a text's UTF-8 bytes, as four upper-case
 * hexadecimal digits. For a BR Code the text is everything up to and including
 * the "6304" that opens the checksum field.
 */
export function crc16Ccitt(text: string): string {
  let crc = 0xffff;
  // ASCII (every code this service builds) is its own UTF-8: no encoding, no copy.
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
  if (ascii) {
    for (let i = 0; i < text.length; i++) {
      crc = ((crc << 8) & 0xffff) ^ (CRC_TABLE[((crc >> 8) ^ text.charCodeAt(i)) & 0xff] ?? 0);
    }
  } else {
    for (const byte of utf8.encode(text)) crc = ((crc << 8) & 0xffff) ^ (CRC_TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

const utf8 = new TextEncoder();
/** CRC16-CCITT of each byte value (polynomial 0x1021), so the checksum takes one lookup per byte. */
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

interface TlvField {
  id: string;
  value: string;
}

/** Whether the four characters of `text` from `at` are ASCII digits (a field's id and length). */
function fourDigits(text: string, at: number): boolean {
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Splits an EMV text into its id / length / value fields, refusing any malformed or repeated field. */
function readTlv(text: string, where: string): Map<string, TlvField> {
  const fields = new Map<string, TlvField>();
  let position = 0;
  while (position < text.length) {
    if (position + 4 > text.length || !fourDigits(text, position)) {
      throw new BrCodeParseError(`${where}: malformed field header at position ${position}`);
    }
    const id = text.slice(position, position + 2);
    const length = (text.charCodeAt(position + 2) - 48) * 10 + (text.charCodeAt(position + 3) - 48);
    const start = position + 4;
    const end = start + length;
    if (end > text.length) {
      throw new BrCodeParseError(`${where}: field ${id} runs past the end of the code`);
    }
    if (fields.has(id)) {
      throw new BrCodeParseError(`${where}: field ${id} appears twice`);
    }
    fields.set(id, { id, value: text.slice(start, end) });
    position = end;
  }
  return fields;
}

function parseAmount(text: string): number {
  const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(text);
  if (match === null) {
    throw new BrCodeParseError(`amount "${text}" is not a decimal number`);
  }
  const units = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(2, "0");
  return Number(units) * 100 + Number(fraction);
}

/**
 * Reads a Pix BR Code with a parser written independently of `pix-utils`.
 *
 * The text must be a sequence of well-formed EMV fields, start with the
 * payload format field "000201", carry a Pix account template (fields 26 to 51
 * with GUI `br.gov.bcb.pix`, in any letter case), and end with the checksum
 * field "6304" plus four hexadecimal digits; otherwise a
 * {@link BrCodeParseError} is thrown. A wrong checksum is not an error: it is
 * reported as `crcValid: false` so callers can tell a damaged code apart from
 * one that is not a BR Code at all.
 */
export function parseBrCode(code: string): ParsedBrCode {
  const fields = readTlv(code, "BR Code");
  if (!code.startsWith("000201")) {
    throw new BrCodeParseError("BR Code must start with payload format indicator 000201");
  }
  const crcField = fields.get("63");
  let lastId: string | undefined;
  for (const id of fields.keys()) lastId = id;
  if (crcField === undefined || lastId !== "63" || !/^[0-9A-Fa-f]{4}$/.test(crcField.value)) {
    throw new BrCodeParseError("BR Code must end with the CRC field 6304 and four hexadecimal digits");
  }
  const crcValid = crc16Ccitt(code.slice(0, -4)) === crcField.value.toUpperCase();

  let account: Map<string, TlvField> | undefined;
  for (let id = 26; id <= 51; id += 1) {
    const template = fields.get(String(id));
    if (template === undefined) {
      continue;
    }
    const subfields = readTlv(template.value, `field ${id}`);
    if (subfields.get("00")?.value.toLowerCase() === PIX_GUI) {
      account = subfields;
      break;
    }
  }
  if (account === undefined) {
    throw new BrCodeParseError(`BR Code has no merchant account template with GUI ${PIX_GUI}`);
  }

  const amountField = fields.get("54");
  const additionalData = fields.get("62");
  const txid = additionalData === undefined ? undefined : readTlv(additionalData.value, "field 62").get("05");

  return {
    pixKey: account.get("01")?.value ?? null,
    merchantName: fields.get("59")?.value ?? "",
    merchantCity: fields.get("60")?.value ?? "",
    amountCents: amountField === undefined ? null : parseAmount(amountField.value),
    txid: txid?.value ?? null,
    crcValid,
  };
}

/**
 * `code` with its amount (field 54) set to `amountCents` and its CRC computed again, every other
 * field as it was: the Pix code of a charge whose amount depends on the day it is paid (a charge
 * with a due date, issue 38). A code without an amount field, or an empty one, is returned as is.
 */
export function brCodeWithAmount(code: string, amountCents: number): string {
  if (code === "") return code;
  const fields = readTlv(code, "BR Code");
  if (!fields.has("54")) return code;
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > MAX_AMOUNT_CENTS) {
    throw new RangeError(`brCodeWithAmount: amountCents must be a positive integer up to ${MAX_AMOUNT_CENTS}`);
  }
  const amount = amountText(amountCents);
  let body = "";
  for (const { id, value } of fields.values()) {
    if (id !== "63") body += emvField(id, id === "54" ? amount : value);
  }
  body += "6304";
  return body + crc16Ccitt(body);
}
