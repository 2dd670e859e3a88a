// `npm run docs:build`: the documentation site as static files in dist/docs (or `--outdir=<dir>`):
// the Markdown pages of docs/ built by VitePress (with its local search index), the three API
// references (Swagger UI pages, each docs/api-reference/page.html filled in from references.json,
// with reference.js, Swagger UI's assets and the three documents beside them), and `.csp-script-hashes.json`, the hashes of the inline scripts VitePress writes into its
// pages, which the server's CSP for /docs allows by hash. `scripts/build.mjs` calls `buildDocs`
// too (what `npm start` runs first), only when a digest of the inputs changed.
// Plain JavaScript, as build.mjs. Decision: docs/decisions/0039-documentation-site-vitepress-and-swagger-ui.md.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const documents = ["openapi.yaml", "dashboard-openapi.yaml", "admin-openapi.yaml"];
const swaggerAssets = ["swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css"];
const stampName = ".inputs-digest";
const referenceSources = join(root, "docs/api-reference");

/** Every file under `dir`, recursively, as absolute paths (VitePress's cache and scratch left out). */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if ((name === "cache" || name === ".temp") && dir.endsWith(".vitepress")) return [];
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** A digest of what the site is built from: the pages, the documents, the lockfile. */
export function docsInputsDigest() {
  const inputs = [
    ...walk(join(root, "docs")),
    ...documents.map((name) => join(root, "generated", name)),
    join(root, "package-lock.json"),
  ].sort();
  const digest = createHash("sha256");
  for (const file of inputs) digest.update(`${relative(root, file)}\0`).update(readFileSync(file));
  return digest.digest("hex");
}

/** True when `outDir` holds a site built from the inputs as they are now. */
export function docsFresh(outDir) {
  const stamp = join(outDir, stampName);
  return existsSync(stamp) && readFileSync(stamp, "utf8") === docsInputsDigest();
}

/** The sha256 CSP sources of every inline `<script>` in the site's pages. */
function inlineScriptHashes(outDir) {
  const hashes = new Set();
  for (const file of walk(outDir).filter((path) => path.endsWith(".html"))) {
    const html = readFileSync(file, "utf8");
    for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
      const body = match[1] ?? "";
      if (body.trim() === "") continue;
      hashes.add(`'sha256-${createHash("sha256").update(body, "utf8").digest("base64")}'`);
    }
  }
  return [...hashes].sort();
}

/** One API reference's page: the one page with its document and label (the server fills it in so too). */
function referencePage(page, { document, label }) {
  return page.replaceAll("{{document}}", document).replaceAll("{{label}}", label);
}

/** Builds the site into `outDir` (emptied first). */
export async function buildDocs(outDir) {
  const digest = docsInputsDigest();
  const { build } = await import("vitepress");
  rmSync(outDir, { recursive: true, force: true });
  await build(join(root, "docs"), { outDir });
  const api = join(outDir, "api");
  mkdirSync(join(api, "assets"), { recursive: true });
  const swagger = dirname(fileURLToPath(import.meta.resolve("swagger-ui-dist/package.json")));
  for (const name of swaggerAssets) cpSync(join(swagger, name), join(api, "assets", name));
  for (const name of documents) cpSync(join(root, "generated", name), join(api, name));
  const page = readFileSync(join(referenceSources, "page.html"), "utf8");
  for (const reference of JSON.parse(readFileSync(join(referenceSources, "references.json"), "utf8"))) {
    mkdirSync(join(api, reference.name));
    writeFileSync(join(api, reference.name, "index.html"), referencePage(page, reference));
  }
  cpSync(join(referenceSources, "reference.js"), join(api, "reference.js"));
  writeFileSync(join(outDir, ".csp-script-hashes.json"), `${JSON.stringify(inlineScriptHashes(outDir))}\n`);
  writeFileSync(join(outDir, stampName), digest);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outdirArg = process.argv.find((arg) => arg.startsWith("--outdir="));
  const outDir = outdirArg ? resolve(outdirArg.slice("--outdir=".length)) : join(root, "dist/docs");
  const started = Date.now();
  await buildDocs(outDir);
  console.log(
    `docs: site em ${relative(process.cwd(), outDir) || "."}/ em ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
