import type { RequestHandler } from "express";

/**
 * Headers of every response: `X-Content-Type-Options: nosniff` (API, operator API, docs, the
 * documents and the checkout); `Cache-Control: no-store` on the API, operator and dashboard APIs, whose bodies
 * are account data; and `Strict-Transport-Security` when the service is published over https
 * (`PUBLIC_BASE_URL`), so browsers never fall back to http.
 */
export function securityHeaders(options: { publicBaseUrl?: string | undefined }): RequestHandler {
  const https = options.publicBaseUrl?.startsWith("https:") ?? false;
  return (req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (https) res.setHeader("Strict-Transport-Security", "max-age=31536000");
    if (req.path.startsWith("/api/") || req.path.startsWith("/admin") || req.path.startsWith("/dashboard/")) {
      res.setHeader("Cache-Control", "no-store");
    }
    next();
  };
}
