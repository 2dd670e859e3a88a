import type { Express, Response } from "express";
import { sharedViews } from "../domain/payments/index.js";

/** The JSON of each shared view (deep-frozen, so its JSON cannot go stale while it lives). */
const texts = new WeakMap<object, string>();

function jsonOf(value: unknown): string {
  if (value !== null && typeof value === "object" && sharedViews.has(value)) {
    let text = texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      texts.set(value, text);
    }
    return text;
  }
  // As inside an array: a value JSON cannot spell (undefined, a function) is null.
  return JSON.stringify(value) ?? "null";
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype;

/**
 * `JSON.stringify(body)`, character for character, reusing the JSON of the shared views in it:
 * the body itself, or the items of a page (`{ data: [...], ... }`). Serialising twenty charges was
 * a tenth of a list's time under load; most of them are the same rows every time.
 */
export function jsonText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  if (!isPlainObject(body) || !Array.isArray(body.data) || sharedViews.has(body)) return jsonOf(body);
  // No kept JSON to reuse (PostgreSQL's rows): one pass, without a string per item to join.
  if (!body.data.some((item) => item !== null && typeof item === "object" && sharedViews.has(item))) {
    return JSON.stringify(body);
  }
  // Every piece in one list joined once: the page's text is made in one copy (joining the items
  // first, then the members, had copied the whole page twice: a sixth of a list's allocations).
  const pieces: string[] = ["{"];
  for (const [key, value] of Object.entries(body)) {
    const text = key === "data" ? null : JSON.stringify(value);
    if (text === undefined) continue;
    if (pieces.length > 1) pieces.push(",");
    pieces.push(JSON.stringify(key), ":");
    if (text !== null) pieces.push(text);
    else {
      pieces.push("[");
      (value as unknown[]).forEach((item, i) => {
        if (i > 0) pieces.push(",");
        pieces.push(jsonOf(item));
      });
      pieces.push("]");
    }
  }
  pieces.push("}");
  return pieces.join("");
}

/**
 * Makes `res.json` of this app use `jsonText`: Express's own with the settings this app does not
 * use (`json replacer`, `json spaces`, `json escape`) left out. The response validator, when on,
 * wraps `res.json` per response and still sees the body object.
 *
 * The text goes to `res.end` as a string, with its Content-Length: Node then writes the headers
 * and the body in one piece. Through `res.send`, Express first copies the text into a Buffer,
 * which Node writes apart from the headers; for a page of twenty charges that copy and the
 * second piece were a tenth of the request. Whatever `res.send` decides beyond that (no body on
 * HEAD, 204 and 304, freshness when a validator header is set) is left to it.
 */
export function fastJson(app: Express): void {
  app.response.json = function json(this: Response, body: unknown) {
    if (!this.get("Content-Type")) this.set("Content-Type", "application/json");
    const text = jsonText(body);
    // Kept for the request logs (request-capture.ts): the text itself, no copy.
    this.locals.answerText = text;
    if (
      text === undefined ||
      this.req.method === "HEAD" ||
      this.statusCode === 204 ||
      this.statusCode === 304 ||
      this.get("ETag") !== undefined ||
      this.get("Last-Modified") !== undefined
    ) {
      return this.send(text);
    }
    const type = String(this.get("Content-Type"));
    if (!/;\s*charset=/i.test(type)) this.set("Content-Type", `${type}; charset=utf-8`);
    this.setHeader("Content-Length", Buffer.byteLength(text));
    this.end(text, "utf8");
    return this;
  };
}
