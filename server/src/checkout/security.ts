import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { setHtmlSecurityHeaders } from "../http/kit/html-security.js";

/**
 * Headers of every checkout response, and a fresh CSP nonce per request in `res.locals.cspNonce`.
 * The only script is our own file, allowed by nonce; no inline script or style, no third party,
 * and no framing (clickjacking on a payment page).
 */
export const checkoutSecurityHeaders: RequestHandler = (req, res, next) => {
  const nonce = randomBytes(18).toString("base64");
  res.locals.cspNonce = nonce;
  setHtmlSecurityHeaders(
    res,
    {
      contentSecurityPolicy: [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ],
      // The page addresses carry the transaction id: never send them to another site.
      referrerPolicy: "no-referrer",
      noSniff: true,
      sameOriginOnly: true,
      hsts: true,
    },
    req.secure,
  );
  next();
};

/** The per-request CSP nonce set by `checkoutSecurityHeaders`. */
export const cspNonce = (res: Response): string => res.locals.cspNonce ?? "";

const cookieName = "pix_checkout";
const SESSION_VALUE = /^[A-Za-z0-9_-]{43}$/;

function readCookie(req: Request, name: string): string | undefined {
  for (const pair of (req.headers.cookie ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * CSRF protection for the checkout's forms: a signed double-submit token.
 *
 * The browser holds a random session value in a cookie (HttpOnly, SameSite=Lax, path /checkout);
 * each form carries `HMAC-SHA256(secret, session value + the form's purpose)`, the purpose being
 * the link (payer form) or the charge ("Simular pagamento"). A POST is accepted only when its
 * token matches its own cookie. Nothing is stored server-side, so it works unchanged across
 * processes that share the secret; the HMAC means a cookie planted by a sibling host is useless
 * without the secret; and SameSite=Lax already keeps the cookie off cross-site POSTs. A browser
 * that says the POST is cross-site (`Sec-Fetch-Site`) is refused before any of that.
 */
export class CheckoutCsrf {
  private readonly secret: Buffer;

  constructor(secret?: string | Buffer) {
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    if (this.secret.length < 16) throw new Error("checkout CSRF secret: at least 16 bytes");
  }

  /** The form token for `purpose`, setting the session cookie first when the browser has none. */
  issue(req: Request, res: Response, purpose: string): string {
    let session = readCookie(req, cookieName);
    if (!session || !SESSION_VALUE.test(session)) {
      session = randomBytes(32).toString("base64url");
      res.cookie(cookieName, session, { httpOnly: true, sameSite: "lax", secure: req.secure, path: "/checkout" });
    }
    return this.sign(session, purpose);
  }

  /** Whether a POST carries the token of its own session for `purpose`. */
  verify(req: Request, purpose: string): boolean {
    const site = req.headers["sec-fetch-site"];
    if (site === "cross-site" || site === "same-site") return false;
    const session = readCookie(req, cookieName);
    const body = req.body as Record<string, unknown> | undefined;
    const token = body?._csrf;
    if (!session || !SESSION_VALUE.test(session) || typeof token !== "string") return false;
    const expected = Buffer.from(this.sign(session, purpose));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(session: string, purpose: string): string {
    return createHmac("sha256", this.secret).update(`checkout-csrf\n${session}\n${purpose}`).digest("base64url");
  }
}
