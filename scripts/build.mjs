// `npm run build`: the server, the webhook worker and the operator CLI as plain JavaScript in dist/,
// one file per source file (no bundling), so every path the code resolves from `import.meta.url`
// (the OpenAPI documents, checkout assets, SQL migrations) keeps the layout it has in the source
// tree; node_modules (swagger-ui-dist among them) resolves from the repository root as before.
//
// Plain JavaScript on purpose: `npm start` runs it first (`prestart`), and an install without
// devDependencies (no tsx, no esbuild) must still start from a dist/ built beforehand.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** `--outdir=<dir>` (tests build elsewhere, so a running `npm start` keeps its dist/). */
const outdirArg = process.argv.find((arg) => arg.startsWith("--outdir="));
const dist = outdirArg ? resolve(outdirArg.slice("--outdir=".length)) : join(root, "dist");
const entry = join(dist, "server/src/main.js");

/** Every file under `dir`, recursively, as absolute paths. */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  if (process.argv.includes("--if-needed") && existsSync(entry)) process.exit(0);
  console.error("esbuild não está instalado (devDependency): rode `npm ci` antes de `npm run build`.");
  process.exit(1);
}

const sources = walk(join(root, "server/src"));
const isCode = (path) => path.endsWith(".ts") && !path.endsWith(".d.ts") && !path.endsWith(".test.ts");
const entryPoints = [...sources.filter(isCode), ...walk(join(root, "generated")).filter(isCode)];

rmSync(dist, { recursive: true, force: true });
await esbuild.build({
  entryPoints,
  outdir: dist,
  outbase: root,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
});

// What the code reads at run time beside itself: the checkout's assets, the SQL migrations, the
// OpenAPI documents (served and used by the validator).
for (const file of sources.filter((path) => !path.endsWith(".ts"))) {
  const target = join(dist, relative(root, file));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(file, target);
}
// Each document also as JSON beside it: the server reads that at start-up (JSON.parse takes
// milliseconds where parsing the YAML took a good part of a second); the YAML stays what is served.
const { parse: parseYaml } = await import("yaml");
for (const file of walk(join(root, "generated")).filter((path) => path.endsWith(".yaml"))) {
  const target = join(dist, relative(root, file));
  cpSync(file, target);
  writeFileSync(target.replace(/\.yaml$/, ".json"), JSON.stringify(parseYaml(readFileSync(file, "utf8"))));
}
if (!process.argv.includes("--quiet")) console.log(`build: ${entryPoints.length} arquivos em ${relative(root, dist)}/`);
