/**
 * Brazilian taxpayer documents (CPF and CNPJ) and Pix key rules.
 *
 * Check-digit validation is delegated to the `cpf-cnpj-validator` library,
 * which also understands the alphanumeric CNPJ introduced by the Receita
 * Federal (12 characters A-Z/0-9 followed by 2 numeric check digits). This
 * module adds a strict shape check in front of it, because the library's
 * "loose" mode silently drops any unexpected character before validating.
 */
import { cnpj as cnpjLib, cpf as cpfLib } from "cpf-cnpj-validator";

/** The kind of Brazilian taxpayer document: CPF for people, CNPJ for companies. */
export type DocumentType = "CPF" | "CNPJ";

/** The five kinds of Pix key registered in the Central Bank's key directory (DICT). */
export type PixKeyType = "CPF" | "CNPJ" | "PHONE" | "EMAIL" | "EVP";

/**
 * Why a document was rejected: `FORMAT` when it does not have the shape of a
 * CPF or CNPJ at all, `CHECK_DIGITS` when it has the right shape but its check
 * digits are wrong or it is a known placeholder such as `111.111.111-11`.
 */
type DocumentRejection = "FORMAT" | "CHECK_DIGITS";

/** The outcome of {@link parseDocument}: the normalized document, or the reason it was rejected. */
export type ParseDocumentResult =
  { ok: true; documentType: DocumentType; document: string } | { ok: false; reason: DocumentRejection };

/** The outcome of {@link normalizePixKey}: the key in its canonical form, or a plain failure. */
export type NormalizePixKeyResult = { ok: true; key: string } | { ok: false };

/** Punctuation people commonly type inside a CPF or CNPJ: dots, dashes, slashes and whitespace. */
const DOCUMENT_PUNCTUATION = /[.\-/\s]/g;
const ALLOWED_DOCUMENT_INPUT = /^[0-9A-Za-z.\-/\s]*$/;
const CPF_SHAPE = /^\d{11}$/;
const CNPJ_SHAPE = /^[0-9A-Z]{12}\d{2}$/;
const SAME_CHARACTER_REPEATED = /^(.)\1+$/;

/**
 * Reads a CPF or CNPJ typed by a person and returns it normalized.
 *
 * Dots, dashes, slashes and spaces are removed and letters are upper-cased.
 * Eleven digits are read as a CPF; fourteen characters (all digits, or the new
 * alphanumeric CNPJ with two numeric check digits at the end) as a CNPJ.
 * Anything else is rejected with `FORMAT`. A document with the right shape but
 * wrong check digits, or made of one repeated digit, is rejected with
 * `CHECK_DIGITS`. The library also refuses the well-known placeholder CPF
 * `123.456.789-09`, which is reported as `CHECK_DIGITS` as well.
 */
export function parseDocument(input: string): ParseDocumentResult {
  if (!ALLOWED_DOCUMENT_INPUT.test(input)) {
    return { ok: false, reason: "FORMAT" };
  }
  const compact = input.replace(DOCUMENT_PUNCTUATION, "").toUpperCase();

  let documentType: DocumentType;
  if (CPF_SHAPE.test(compact)) {
    documentType = "CPF";
  } else if (CNPJ_SHAPE.test(compact)) {
    documentType = "CNPJ";
  } else {
    return { ok: false, reason: "FORMAT" };
  }

  if (SAME_CHARACTER_REPEATED.test(compact)) {
    return { ok: false, reason: "CHECK_DIGITS" };
  }
  const valid = documentType === "CPF" ? cpfLib.isValid(compact) : cnpjLib.isValid(compact);
  if (!valid) {
    return { ok: false, reason: "CHECK_DIGITS" };
  }
  return { ok: true, documentType, document: compact };
}

/**
 * Tells whether a document is valid and of the given type, for example that a
 * payer who claims to be a company really sent a valid CNPJ. Punctuation is
 * accepted, as in {@link parseDocument}.
 */
export function documentMatchesType(document: string, documentType: DocumentType): boolean {
  const parsed = parseDocument(document);
  return parsed.ok && parsed.documentType === documentType;
}

/**
 * Writes a document with its usual punctuation, as shown on the hosted
 * checkout: `123.456.789-09` for a CPF and `12.345.678/0001-95` (or
 * `12.ABC.345/01DE-35`) for a CNPJ.
 *
 * Only the shape is checked, not the check digits. Throws a `RangeError` when
 * the document does not have the shape of the given type, because that means
 * unvalidated data reached the display layer.
 */
export function formatDocument(document: string, documentType: DocumentType): string {
  const compact = document.replace(DOCUMENT_PUNCTUATION, "").toUpperCase();
  if (documentType === "CPF") {
    if (!CPF_SHAPE.test(compact)) {
      throw new RangeError("formatDocument: not an 11-digit CPF");
    }
    return `${compact.slice(0, 3)}.${compact.slice(3, 6)}.${compact.slice(6, 9)}-${compact.slice(9)}`;
  }
  if (!CNPJ_SHAPE.test(compact)) {
    throw new RangeError("formatDocument: not a 14-character CNPJ");
  }
  return `${compact.slice(0, 2)}.${compact.slice(2, 5)}.${compact.slice(5, 8)}/${compact.slice(8, 12)}-${compact.slice(12)}`;
}

const EMAIL_MAX_LENGTH = 77;
const EMAIL_LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const EMAIL_DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL_TOP_LEVEL_DOMAIN = /^[a-z]{2,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PHONE_PUNCTUATION = /[\s().-]/g;
/** A Brazilian area code (DDD) never contains the digit zero. */
const NATIONAL_MOBILE = /^[1-9]{2}9\d{8}$/;
const NATIONAL_LANDLINE = /^[1-9]{2}[2-8]\d{7}$/;

function normalizeEmail(key: string): NormalizePixKeyResult {
  const email = key.trim().toLowerCase();
  if (email.length > EMAIL_MAX_LENGTH) {
    return { ok: false };
  }
  const parts = email.split("@");
  const local = parts[0];
  const domain = parts[1];
  if (parts.length !== 2 || local === undefined || domain === undefined) {
    return { ok: false };
  }
  if (local.length > 64 || !EMAIL_LOCAL_PART.test(local)) {
    return { ok: false };
  }
  const labels = domain.split(".");
  const topLevel = labels[labels.length - 1];
  if (labels.length < 2 || topLevel === undefined || !EMAIL_TOP_LEVEL_DOMAIN.test(topLevel)) {
    return { ok: false };
  }
  if (!labels.every((label) => EMAIL_DOMAIN_LABEL.test(label))) {
    return { ok: false };
  }
  return { ok: true, key: email };
}

function normalizePhone(key: string): NormalizePixKeyResult {
  const compact = key.trim().replace(PHONE_PUNCTUATION, "");
  let digits: string;
  if (compact.startsWith("+")) {
    if (!compact.startsWith("+55")) {
      return { ok: false };
    }
    digits = compact.slice(3);
  } else if (/^55\d{10,11}$/.test(compact)) {
    digits = compact.slice(2);
  } else {
    digits = compact;
  }
  if (!NATIONAL_MOBILE.test(digits) && !NATIONAL_LANDLINE.test(digits)) {
    return { ok: false };
  }
  return { ok: true, key: `+55${digits}` };
}

/**
 * Checks a Pix key of the given type and returns it in the canonical form the
 * key directory uses.
 *
 * - `CPF` / `CNPJ`: a valid document of that type (see {@link parseDocument}),
 *   returned without punctuation.
 * - `PHONE`: a Brazilian number, typed with or without `+55` and punctuation,
 *   returned as `+55` + area code + number (`+5511987654321`). The area code
 *   must not contain a zero; an 11-digit national number must be a mobile
 *   (starting with 9 after the area code) and a 10-digit one a landline.
 * - `EMAIL`: a plain address of at most 77 characters, returned lower-cased.
 * - `EVP`: a random key, which is a UUID in any letter case, returned
 *   lower-cased.
 *
 * Leading and trailing whitespace is ignored for every type.
 */
export function normalizePixKey(key: string, type: PixKeyType): NormalizePixKeyResult {
  switch (type) {
    case "CPF":
    case "CNPJ": {
      const parsed = parseDocument(key.trim());
      return parsed.ok && parsed.documentType === type ? { ok: true, key: parsed.document } : { ok: false };
    }
    case "PHONE":
      return normalizePhone(key);
    case "EMAIL":
      return normalizeEmail(key);
    case "EVP": {
      const uuid = key.trim().toLowerCase();
      return UUID.test(uuid) ? { ok: true, key: uuid } : { ok: false };
    }
  }
}

/** Hides the middle of a string that is not a valid key, keeping a quarter at each end. */
function maskUnrecognized(key: string): string {
  const characters = Array.from(key);
  const keep = Math.floor(characters.length / 4);
  return characters
    .map((character, index) => (index < keep || index >= characters.length - keep ? character : "*"))
    .join("");
}

/**
 * Returns a Pix key partially hidden, so a payer can recognise the receiver
 * without the full key being exposed. The result is deterministic:
 *
 * - `CPF`: `***.456.789-**` (the middle six digits, as the Central Bank does).
 * - `CNPJ`: `**.345.678/****-**` (six of the fourteen characters).
 * - `EMAIL`: `jo***@example.com` (at most two, and at most half, of the
 *   characters before the `@`; the domain is kept).
 * - `PHONE`: `+55 11 9****-1234` (area code, first digit and last four digits).
 * - `EVP`: `123e4567-****-****-****-********4000` (first eight and last four
 *   characters; every other letter or digit replaced by `*`).
 *
 * A key that is not valid for its type is masked generically, keeping only the
 * first and last quarter of its characters.
 */
export function maskPixKey(key: string, type: PixKeyType): string {
  const normalized = normalizePixKey(key, type);
  if (!normalized.ok) {
    return maskUnrecognized(key.trim());
  }
  const value = normalized.key;
  switch (type) {
    case "CPF":
      return `***.${value.slice(3, 6)}.${value.slice(6, 9)}-**`;
    case "CNPJ":
      return `**.${value.slice(2, 5)}.${value.slice(5, 8)}/****-**`;
    case "EMAIL": {
      const at = value.indexOf("@");
      const local = value.slice(0, at);
      const visible = Math.min(2, Math.floor(local.length / 2));
      return `${local.slice(0, visible)}***${value.slice(at)}`;
    }
    case "PHONE": {
      const areaCode = value.slice(3, 5);
      const subscriber = value.slice(5);
      const hidden = "*".repeat(subscriber.length - 5);
      return `+55 ${areaCode} ${subscriber.slice(0, 1)}${hidden}-${subscriber.slice(-4)}`;
    }
    case "EVP":
      return `${value.slice(0, 8)}${value.slice(8, -4).replace(/[0-9a-f]/g, "*")}${value.slice(-4)}`;
  }
}
