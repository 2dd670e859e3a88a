import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type IRouter, type RequestHandler } from "express";
import { htmlSecurityHeaders } from "./kit/html-security.js";

// The merchant dashboard's web app (issue 26) under /painel: the files `vite build` wrote
// (scripts/build.mjs → dist/painel), on the API's origin, with a history fallback (any /painel/…
// that is not a file answers index.html, and the app's router reads the address), a strict CSP
// (docs/decisions/0036-dashboard-web-app.md) and a year's cache for the hashed assets.

/** Where the app is served. */
const panelBase = "/painel";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The built app's folder: `painel/` beside the built server (dist/server/src/http → dist/painel),
 * or `dist/painel` of the repository when the server runs from its sources (tsx). Null: not built.
 */
export function defaultPanelDirectory(): string | null {
  const candidates = [resolve(here, "../../../painel"), resolve(here, "../../../dist/painel")];
  return candidates.find((dir) => existsSync(join(dir, "index.html"))) ?? null;
}

/** The app's headers: only its own files run, nothing inline, no framing, no third party. */
const panelHeaders = htmlSecurityHeaders({
  contentSecurityPolicy: [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ],
  // Same-origin only: the e-mail links carry a token in the address. Not `no-referrer`, with which
  // a browser sends `Origin: null` on the app's own POSTs, and the dashboard API refuses those.
  referrerPolicy: "same-origin",
  sameOriginOnly: true,
});

/** Mounts the app at /painel from `dir` (the built files), or a page saying how to build it. */
export function mountPanel(app: IRouter, dir: string | null): void {
  app.use(panelBase, panelHeaders);
  if (!dir) {
    app.get([panelBase, `${panelBase}/*path`], (_req, res) => {
      res
        .status(503)
        .type("text/plain; charset=utf-8")
        .setHeader("Cache-Control", "no-store")
        .send("O painel não foi compilado: rode `npm run build` (ou `npm start`, que compila antes).\n");
    });
    return;
  }
  const index = join(dir, "index.html");
  const sendIndex: RequestHandler = (_req, res) => {
    // Always asked again: a new build's index names new hashed assets.
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  };
  app.use(
    `${panelBase}/assets`,
    express.static(join(dir, "assets"), { index: false, redirect: false, immutable: true, maxAge: "365d" }),
    // A hashed asset of another build: not the app's page (the browser would read HTML as a script).
    (_req, res) => {
      res.status(404).type("text/plain; charset=utf-8").send("Arquivo não encontrado.\n");
    },
  );
  app.use(panelBase, express.static(dir, { index: false, redirect: false, maxAge: "1h", setHeaders: noCacheForIndex }));
  app.get([panelBase, `${panelBase}/`, `${panelBase}/*path`], sendIndex);
}

function noCacheForIndex(res: express.Response, path: string): void {
  if (path.endsWith("index.html")) res.setHeader("Cache-Control", "no-cache");
}
