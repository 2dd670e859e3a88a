import type { RequestHandler, Response } from "express";

// The security headers of the HTML the server answers: the checkout's pages, the dashboard's app
// (/painel) and the documentation site (/docs). Each states its Content-Security-Policy and its
// referrer policy; the rest is the same everywhere it applies: no framing (X-Frame-Options beside
// `frame-ancestors 'none'`), a browsing context of its own (Cross-Origin-Opener-Policy).

export interface HtmlSecurity {
  /** The Content-Security-Policy's directives, one a string. */
  contentSecurityPolicy: readonly string[];
  /** `no-referrer` where the addresses carry an id; `same-origin` where the page's own POSTs need `Origin`. */
  referrerPolicy: "no-referrer" | "same-origin";
  /** `X-Content-Type-Options: nosniff`. */
  noSniff?: boolean;
  /** `Cross-Origin-Resource-Policy: same-origin` and a Permissions-Policy that turns the devices off. */
  sameOriginOnly?: boolean;
  /** A year of `Strict-Transport-Security`, on a request that came over HTTPS. */
  hsts?: boolean;
}

/** Sets `security`'s headers on `res` (`secure`: the request came over HTTPS). */
export function setHtmlSecurityHeaders(res: Response, security: HtmlSecurity, secure = false): void {
  res.setHeader("Content-Security-Policy", security.contentSecurityPolicy.join("; "));
  res.setHeader("X-Frame-Options", "DENY");
  if (security.noSniff) res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", security.referrerPolicy);
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  if (security.sameOriginOnly) {
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    res.setHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), clipboard-write=(self)");
  }
  if (security.hsts && secure) res.setHeader("Strict-Transport-Security", "max-age=31536000");
}

/** A middleware that sets `security`'s headers on every answer it passes. */
export const htmlSecurityHeaders =
  (security: HtmlSecurity): RequestHandler =>
  (req, res, next) => {
    setHtmlSecurityHeaders(res, security, req.secure);
    next();
  };
