// The one masking of the request logs (issue 37 §2; docs/decisions/0058-request-logs.md): a JSON
// text as kept, with documents, e-mail addresses and secrets masked, cut short at a byte budget.
// It works on the text the server sent (or the request's body as JSON) rather than on objects:
// one pass of one regular expression over at most `limit` characters, whatever the size of the
// body, off the request's way (the buffer's flush).

/** What a masked secret reads as (the audit log's word too). */
export const maskedSecret = "[secreto]";

/**
 * Field names whose string value is a secret: a secret, token, password (`senha`), an API key
 * (`key`, `apiKey`, `secretKey`, `privateKey`), an authorization or a cookie. A Pix key
 * (`pixKey`) is not one: it is masked when it is a document or an e-mail address, as any value.
 */
const secretName = /secret|token|password|passwd|senha|authorization|cookie|^(api|private|secret|access)?_?key$/i;

/** A whole JSON string that is a CPF or a CNPJ, its digits alone or punctuated. */
const documentString = /"(\d{3}\.?\d{3}\.?\d{3}-?\d{2}|\d{2}\.?\d{3}\.?\d{3}\/?\d{4}-?\d{2})"/g;

/**
 * A member whose string value may be a secret's: its name ends as a secret's does (`secret`,
 * `token`, `password`, `senha`, `authorization`, `cookie`, `key`); the whole name is then checked
 * by `secretName`. Literal endings first: the engine skips quickly over everything else.
 */
const secretMember =
  /([Ss]ecret|[Tt]oken|[Pp]assw(?:or)?d|[Ss]enha|[Aa]uthorization|[Cc]ookie|[Kk]ey)"(\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/**
 * A CPF's or CNPJ's middle six digits only, in the shape it was written: `***982247**`,
 * `***.982.247-**`, `**222333******`, `**.222.333/****-**` (an 11-digit phone number reads as a CPF,
 * and is masked alike).
 */
function maskedDocument(value: string): string {
  const keepFrom = value.replace(/\D/g, "").length === 11 ? 3 : 2;
  let digit = -1;
  return value.replace(/\d/g, (d) => {
    digit++;
    return digit >= keepFrom && digit < keepFrom + 6 ? d : "*";
  });
}

/** Characters that end an e-mail address's local part or domain inside a text. */
const notInAddress = (code: number) =>
  code === 34 /* " */ ||
  code === 92 /* \ */ ||
  code <= 32 ||
  code === 60 /* < */ ||
  code === 62 /* > */ ||
  code === 44 /* , */ ||
  code === 59 /* ; */ ||
  code === 58 /* : */ ||
  code === 40 /* ( */ ||
  code === 41 /* ) */ ||
  code === 64; /* @ */

/**
 * Every e-mail address in `text` (a JSON string's whole value or part of one) with its first two
 * letters and its domain only: `ma***@example.com`. Found by its `@`, a native search.
 */
function maskEmails(text: string): string {
  let at = text.indexOf("@");
  if (at < 0) return text;
  const parts: string[] = [];
  let done = 0;
  for (; at >= 0; at = text.indexOf("@", at + 1)) {
    let start = at;
    while (start > done && !notInAddress(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && !notInAddress(text.charCodeAt(end))) end++;
    // A local part and a domain with a dot: an address (`@` alone, `a@b`, `@types/node` are not).
    if (start === at || !text.slice(at + 1, end).includes(".") || at - start > 64) continue;
    parts.push(text.slice(done, start), text.slice(start, Math.min(start + 2, at)), "***");
    done = at;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(done));
  return parts.join("");
}

function mask(text: string): string {
  const documents = text.replace(documentString, (_whole, document: string) => `"${maskedDocument(document)}"`);
  const secrets = documents.replace(secretMember, (whole: string, _ending: string, colon: string, offset: number) => {
    const open = documents.lastIndexOf('"', offset);
    const name = documents.slice(open + 1, offset + whole.indexOf('"'));
    return secretName.test(name) ? `${whole.slice(0, whole.indexOf('"') + 1)}${colon}"${maskedSecret}"` : whole;
  });
  return maskEmails(secrets);
}

/** How far past the budget a body is masked before it is cut: documents and addresses are short. */
const cutMargin = 384;

/**
 * `masked` (already masked) cut at `limit` characters, and back to the last string's opening quote
 * before the cut: a string longer than the margin that straddles the cut was not masked whole (its
 * closing quote lay past what was masked), so none of it is kept.
 */
function cutAt(masked: string, limit: number): string {
  let quote = masked.lastIndexOf('"', limit - 1);
  for (; quote > 0; quote = masked.lastIndexOf('"', quote - 1)) {
    let backslashes = 0;
    while (masked.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) break;
  }
  return masked.slice(0, Math.max(quote, 0));
}

/** The request logs' budget for a request's body and a failure's answer, in characters (16 KiB). */
const bodyLimit = 16 * 1024;

/**
 * The budget for a success's answer (2 KiB: a charge whole, a list's first item or two). Masking
 * costs by the character and the list of twenty charges (20 KiB) is the API's most frequent answer:
 * its whole 16 KiB was a sixth of the list's server time, 4 KiB still 7 % of it
 * (docs/decisions/0058-request-logs.md).
 */
export const successAnswerLimit = 2 * 1024;

/**
 * A JSON text as the request logs keep it: masked (CPF and CNPJ, e-mail addresses, secrets'
 * values) and at most `limit` characters, `truncated` when it was cut. Only the budget and a
 * margin are read, whatever the body's size.
 */
export function maskedJson(text: string, limit = bodyLimit): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text: mask(text), truncated: false };
  return { text: cutAt(mask(text.slice(0, limit + cutMargin)), limit), truncated: true };
}
