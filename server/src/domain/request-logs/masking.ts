// The one masking of the request logs (issue 37 §2; docs/decisions/0058-request-logs.md): a JSON
// text as kept, with documents, e-mail addresses and secrets masked, cut short at a byte budget.
// It works on the text the server sent (or the request's body as JSON) rather than on objects:
// a pass of a regular expression or two over at most `limit` characters, whatever the size of the
// body, off the request's way (the buffer's flush).

/** What a masked secret reads as (the audit log's word too). */
export const maskedSecret = "[secreto]";

/**
 * Field names whose value is a secret, in any case and in the plural: a secret, token, password
 * (`passwd`, `pwd`, `senha`), credentials, an authorization, a cookie, a one-time code (`otp`), or
 * a key that is one (`key`, `apiKey`, `API_KEY`, `x-api-key`, `privateKeyPem`, `signingKey`,
 * `masterKeys`). A Pix key (`pixKey`), an idempotency key or a public key is not one: a Pix key is
 * masked when it is a document or an e-mail address, as any value.
 */
const secretName =
  /secret|token|passw|pwd|senha|authorization|cookie|credential|^otps?$|(^|[-_]|api|private|secret|access|signing|master|encryption|client)[-_]?keys?(pem)?$/i;

/**
 * A CPF or a CNPJ, its digits alone or punctuated, standing on its own: a whole JSON string, or
 * inside a text (a description, a path: `/customers/52998224725`) after a space, a quote, a
 * parenthesis, `=` or the like. Never digits inside an id (`txn_529…`, an end-to-end id) or a
 * longer number, nor a JSON number (those follow `:`, `[` or `,`). The character before it is
 * group 1, kept.
 */
const documentPattern = /(^|[^\w.:,[-])(\d{3}\.?\d{3}\.?\d{3}-?\d{2}|\d{2}\.?\d{3}\.?\d{3}\/?\d{4}-?\d{2})(?![\w./-])/g;

/**
 * A member whose value may be a secret's: its name ends as a secret's does (above), in any case;
 * the whole name is then checked by `secretName`, and the whole value (a string, a number, a list,
 * an object) is replaced. Literal endings: the engine skips quickly over everything else.
 */
const secretMember =
  /(secret|token|passw(?:or)?d|pwd|senha|authorization|cookie|credential|otp|key|keypem)s?"\s*:\s*/gi;

/**
 * Where the JSON value that starts at `start` ends (the index after it): a string to its closing
 * quote, a list or an object to its closing bracket, anything else to the next `,`, `}` or `]`. A
 * value cut short (the text was cut at the budget) ends where the text does.
 */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth === 0) return i;
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === 44 /* , */ && depth === 0) return i;
  }
  return text.length;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * A CPF's or CNPJ's middle six digits only, in the shape it was written: `***982247**`,
 * `***.982.247-**`, `**222333******`, `**.222.333/****-**` (an 11-digit phone number reads as a CPF,
 * and is masked alike).
 */
function maskedDocument(value: string): string {
  // Loops over the characters, no callback per digit (a page's two or three documents cost
  // about 2 % of a list's server time with two regular-expression replaces each).
  let digits = 0;
  for (let i = 0; i < value.length; i++) if (isDigit(value.charCodeAt(i))) digits++;
  const keepFrom = digits === 11 ? 3 : 2;
  let out = "";
  let digit = -1;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (!isDigit(value.charCodeAt(i))) out += c;
    else {
      digit++;
      out += digit >= keepFrom && digit < keepFrom + 6 ? c : "*";
    }
  }
  return out;
}

/** A match of `documentPattern`, its document masked and the character before it kept. */
const maskedMatch = (_whole: string, before: string, document: string) => `${before}${maskedDocument(document)}`;

/** Characters that end an e-mail address's local part or domain inside a text or a path. */
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
  code === 64 /* @ */ ||
  code === 47 /* / */ ||
  code === 63 /* ? */ ||
  code === 38 /* & */ ||
  code === 61; /* = */

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
    // A local part and a domain with a dot: an address (`@` alone, `a@b`, `@types/node` are not),
    // whatever the local part's length (the API takes longer ones than RFC 5321's 64).
    if (start === at || !text.slice(at + 1, end).includes(".")) continue;
    parts.push(text.slice(done, start), text.slice(start, Math.min(start + 2, at)), "***");
    done = at;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(done));
  return parts.join("");
}

/** `text` with the value of every secret-named member replaced by `maskedSecret`. */
function maskSecrets(text: string): string {
  const parts: string[] = [];
  let done = 0;
  for (const found of text.matchAll(secretMember)) {
    const at = found.index;
    if (at < done) continue; // inside a value already replaced
    const close = at + found[0].indexOf('"');
    const name = text.slice(text.lastIndexOf('"', at - 1) + 1, close);
    if (!secretName.test(name)) continue;
    const valueStart = at + found[0].length;
    parts.push(text.slice(done, valueStart), `"${maskedSecret}"`);
    done = valueEnd(text, valueStart);
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(done));
  return parts.join("");
}

function mask(text: string): string {
  return maskEmails(maskSecrets(text.replace(documentPattern, maskedMatch)));
}

/** A request's path as the request logs keep it: a CPF, CNPJ or e-mail address in it masked. */
export function maskedPath(path: string): string {
  return maskEmails(path.replace(documentPattern, maskedMatch));
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
