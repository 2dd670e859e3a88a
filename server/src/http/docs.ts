import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type IRouter, type RequestHandler } from "express";
import { htmlSecurityHeaders } from "./kit/html-security.js";

// The documentation site under /docs (docs/decisions/0039-documentation-site-vitepress-and-swagger-ui.md):
// the pages VitePress built (scripts/build-docs.mjs → dist/docs, with its search index) and the three
// API references, Swagger UI pages (one page, docs/api-reference/page.html, filled in for each of
// references.json). Everything from this origin: no CDN. Before
// the site is built, the references are still served from their sources and /docs says in
// Portuguese how to build the rest.

const docsBase = "/docs";
/** The file the build writes last: a folder holding it is a whole built site. */
const builtMarker = ".csp-script-hashes.json";
const documents = ["openapi.yaml", "dashboard-openapi.yaml", "admin-openapi.yaml"];

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/**
 * The built site's folder: `docs/` beside the built server (dist/server/src/http → dist/docs), or
 * `dist/docs` of the repository when the server runs from its sources (tsx). Null: not built.
 */
export function defaultDocsDirectory(): string | null {
  const candidates = [resolve(here, "../../../docs"), resolve(here, "../../../dist/docs")];
  return candidates.find((dir) => existsSync(join(dir, builtMarker))) ?? null;
}

/** The reference pages' source (docs/api-reference), from the sources or from beside dist/. */
function referenceSources(): string | null {
  const candidates = [resolve(here, "../../../docs/api-reference"), resolve(here, "../../../../docs/api-reference")];
  return candidates.find((dir) => existsSync(join(dir, "references.json"))) ?? null;
}

interface Reference {
  /** Its folder under /docs/api/. */
  name: string;
  /** Its document's file name under /docs/api/. */
  document: string;
  label: string;
}

/** One API reference's page: the one page with its document and label (scripts/build-docs.mjs fills it in so too). */
function referencePage(page: string, { document, label }: Reference): string {
  return page.replaceAll("{{document}}", document).replaceAll("{{label}}", label);
}

/** Serves the reference pages from their source, as the build writes them. */
function serveReferences(app: IRouter, sources: string): void {
  const page = readFileSync(join(sources, "page.html"), "utf8");
  const references = JSON.parse(readFileSync(join(sources, "references.json"), "utf8")) as Reference[];
  app.get(`${docsBase}/api/reference.js`, (_req, res) => {
    res.sendFile(join(sources, "reference.js"));
  });
  for (const reference of references) {
    const html = referencePage(page, reference);
    const path = `${docsBase}/api/${reference.name}`;
    // As a folder is served: without its slash, sent to it.
    app.get(path, (_req, res) => res.redirect(301, `${path}/`));
    app.get(`${path}/`, (_req, res) => {
      res.setHeader("Cache-Control", "no-cache");
      res.type("html").send(html);
    });
  }
}

/**
 * The headers of every /docs answer. Scripts: the site's own files and, by hash, the few inline
 * scripts VitePress writes into its pages (the build lists them). Styles may be inline: VitePress
 * and Swagger UI both set style attributes, and nothing on these pages comes from a user. Images may
 * be `data:` URLs (both draw icons so). No framing; nothing from another origin.
 */
const docsHeaders = (scriptHashes: readonly string[]): RequestHandler =>
  htmlSecurityHeaders({
    contentSecurityPolicy: [
      "default-src 'none'",
      ["script-src 'self'", ...scriptHashes].join(" "),
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self'",
      "connect-src 'self'",
      "manifest-src 'self'",
      "form-action 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ],
    referrerPolicy: "same-origin",
  });

/** What /docs answers before the site is built: how to build it, and the references meanwhile. */
const notBuiltPage = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pix Charging Service — documentação</title>
</head>
<body>
<h1>A documentação ainda não foi construída</h1>
<p>Rode <code>npm run docs:build</code> (ou <code>npm start</code>, que a constrói antes de iniciar) e recarregue esta página.
As páginas também podem ser lidas como Markdown na pasta <code>docs/</code> do repositório.</p>
<p>Enquanto isso, as referências da API já estão aqui:</p>
<ul>
<li><a href="/docs/api/public/">API pública</a></li>
<li><a href="/docs/api/dashboard/">API do painel</a></li>
<li><a href="/docs/api/admin/">API do operador</a></li>
</ul>
</body>
</html>
`;

/** Mounts /docs: the built site in `dir`, or the references from their sources and a page saying how to build. */
export function mountDocs(app: IRouter, dir: string | null, documentsDir: string): void {
  const hashes = dir ? (JSON.parse(readFileSync(join(dir, builtMarker), "utf8")) as string[]) : [];
  app.use(docsBase, docsHeaders(hashes));
  // `/docs` alone (the router may match `/docs/` here too) is sent to `/docs/`, where the site's
  // pages live (their links are relative to it), built or not.
  app.get(docsBase, (req, res, next) => {
    if (req.originalUrl.split("?")[0] !== docsBase) return next();
    res.redirect(301, `${docsBase}/`);
  });
  if (dir) {
    // Hashed by VitePress: a year. Pages: asked again, a new build names new assets.
    app.use(
      `${docsBase}/assets`,
      express.static(join(dir, "assets"), { index: false, redirect: false, immutable: true, maxAge: "365d" }),
    );
    app.use(docsBase, express.static(dir, { extensions: ["html"], dotfiles: "ignore", setHeaders: noCacheForHtml }));
    app.use(docsBase, (_req, res) => {
      res.status(404).setHeader("Cache-Control", "no-cache").sendFile(join(dir, "404.html"));
    });
    return;
  }
  app.get(`${docsBase}/`, (_req, res) => {
    res.setHeader("Cache-Control", "no-cache");
    res.type("html").send(notBuiltPage);
  });
  const swagger = dirname(require.resolve("swagger-ui-dist/package.json"));
  app.use(`${docsBase}/api/assets`, express.static(swagger, { index: false, redirect: false }));
  for (const name of documents)
    app.get(`${docsBase}/api/${name}`, (_req, res) => {
      res.type("application/yaml").sendFile(join(documentsDir, name));
    });
  const sources = referenceSources();
  if (sources) serveReferences(app, sources);
}

function noCacheForHtml(res: express.Response, path: string): void {
  if (path.endsWith(".html")) res.setHeader("Cache-Control", "no-cache");
}
