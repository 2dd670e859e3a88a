// `npm run build`: the server, the webhook worker and the operator CLI as plain JavaScript in dist/,
// the dashboard's web app (dashboard/, Vite) in dist/painel, which the server serves at /painel,
// and the documentation site (docs/, scripts/build-docs.mjs) in dist/docs, served at /docs.
// one file per source file, so every path the code resolves from `import.meta.url` (the OpenAPI
// documents, checkout assets, SQL migrations) keeps the layout it has in the source tree;
// node_modules (swagger-ui-dist among them) resolves from the repository root as before.
// The server's entry (dist/server/src/main.js) is then replaced by a bundle of it and its
// dependencies (main.js and the chunks beside it that it imports on first use): resolving and
// loading some thousand separate modules was most of the start-up.
//
// Plain JavaScript on purpose: `npm start` runs it first (`prestart`), and an install without
// devDependencies (no tsx, no esbuild) must still start from a dist/ built beforehand.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
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

// The web app is rebuilt only when what it is built from changed (`--if-needed`, as `npm start`
// runs it): a digest of those files' contents is kept beside the built app.
// `--without-panel`, or a copy of the tree without dashboard/ (the process tests' scratch copy):
// the server alone.
const ifNeeded = process.argv.includes("--if-needed");
const withPanel = !process.argv.includes("--without-panel") && existsSync(join(root, "dashboard"));
const panelDir = join(dist, "painel");
const panelStampFile = join(panelDir, ".inputs-digest");
const panelInputs = withPanel
  ? [
      ...walk(join(root, "dashboard")),
      join(root, "generated/dashboard-api.d.ts"),
      join(root, "package-lock.json"),
    ].sort()
  : [];
const panelDigest = createHash("sha256");
for (const file of panelInputs) panelDigest.update(`${relative(root, file)}\0`).update(readFileSync(file));
const panelStamp = panelDigest.digest("hex");
const panelFresh =
  withPanel && ifNeeded && existsSync(panelStampFile) && readFileSync(panelStampFile, "utf8") === panelStamp;

// The documentation site likewise (`--without-docs`, or a tree without docs/: none), rebuilt only
// when its inputs changed (scripts/build-docs.mjs keeps their digest beside the site).
const withDocs = !process.argv.includes("--without-docs") && existsSync(join(root, "docs/.vitepress"));
const docsDir = join(dist, "docs");
const docsBuilder = withDocs ? await import("./build-docs.mjs") : null;
const docsFresh = docsBuilder !== null && ifNeeded && docsBuilder.docsFresh(docsDir);

const sources = walk(join(root, "server/src"));
const isCode = (path) => path.endsWith(".ts") && !path.endsWith(".d.ts") && !path.endsWith(".test.ts");
const generatedFiles = walk(join(root, "generated"));
const entryPoints = [...sources.filter(isCode), ...generatedFiles.filter(isCode)];

// The server itself likewise (`--if-needed`): rebuilt only when what it is built from changed, so
// `npm start` on an unchanged checkout starts without a build (2–4 s of CPU each time before).
// (A copy of the tree may lack the lockfile: the process tests' scratch copy.)
const serverInputs = [
  ...sources,
  ...generatedFiles,
  ...[join(root, "package-lock.json")].filter((path) => existsSync(path)),
  fileURLToPath(import.meta.url),
].sort();
const serverDigest = createHash("sha256");
for (const file of serverInputs) serverDigest.update(`${relative(root, file)}\0`).update(readFileSync(file));
const serverStamp = serverDigest.digest("hex");
const serverStampFile = join(dist, ".server-inputs-digest");
const serverFresh =
  ifNeeded && existsSync(entry) && existsSync(serverStampFile) && readFileSync(serverStampFile, "utf8") === serverStamp;

if (!serverFresh) {
  const kept = new Set([...(panelFresh ? ["painel"] : []), ...(docsFresh ? ["docs"] : [])]);
  if (existsSync(dist))
    for (const name of readdirSync(dist))
      if (!kept.has(name)) rmSync(join(dist, name), { recursive: true, force: true });
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

  // The server as one bundle. Each module's `import.meta.url` becomes the URL its own file has in the
  // per-file layout above, so the files it reads beside itself are found as before. Left outside the
  // bundle: pino-pretty (imported only for a terminal), pg's optional native binding, and
  // @node-rs/argon2 (a native module it loads by platform at run time).
  //
  // Start-up to the first /health is held to 600 ms (`npm run bench`), and most of it was V8 reading
  // the bundle and evaluating what it holds. So what a process may never need is not read at start:
  // every dynamic `import()` of the server (the three documents' generated request validators, about
  // 1.5 MB, at the first request of their API; the PostgreSQL store with node-pg-migrate; nodemailer
  // with an SMTP mailer; qrcode at the checkout's first QR image) becomes a chunk of its own beside
  // main.js (`splitting`), read when first imported; and the bundle is
  // written without its indentation and comments (`minifyWhitespace`; names are kept, and
  // `--enable-source-maps` maps every stack trace back to the sources). docs/benchmarks.md, "Start-up".
  const serverEntry = join(root, "server/src/main.ts");

  /**
   * One copy of each version of a package in the bundle. npm installs a package once per place whose
   * version the root's copy does not satisfy: express 5, body-parser and send each have their own
   * mime-types 3.0.2 with mime-db 1.54.0 (the root's are 2.x, for the mock's and the bench's tools),
   * and body-parser and express their own type-is and content-type. Bundled as installed, main.js
   * held three copies of mime-db's table (about 600 KB of its 2 MB) and each start built the three
   * copies' maps. An import resolved inside node_modules to a copy of a version found elsewhere too
   * is resolved to one chosen copy of it (the shortest path, then by name: the same in every build);
   * a different version stays its own.
   */
  const oneCopyPerVersion = {
    name: "one-copy-per-package-version",
    setup(build) {
      const nodeModules = join(root, "node_modules");
      const inNodeModules = `${sep}node_modules${sep}`;
      /**
       * A package folder's `name@version` from its package.json, read once per folder for the
       * whole build (the walk below and every import resolved into the folder): null when the
       * manifest names none, undefined when there is no manifest to read.
       */
      const keys = new Map();
      const packageKey = (dir) => {
        if (!keys.has(dir)) {
          let key;
          try {
            const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
            key =
              typeof manifest.name === "string" && typeof manifest.version === "string"
                ? `${manifest.name}@${manifest.version}`
                : null;
          } catch {
            key = undefined;
          }
          keys.set(dir, key);
        }
        return keys.get(dir);
      };
      /** The folders of every installed package by `name@version`, the chosen one first. */
      let copies;
      const findCopies = () => {
        const found = new Map();
        const visit = (dir) => {
          const key = packageKey(dir);
          if (key === undefined) return;
          if (key !== null) found.set(key, [...(found.get(key) ?? []), dir]);
          if (existsSync(join(dir, "node_modules"))) walkPackages(join(dir, "node_modules"));
        };
        const walkPackages = (dir) => {
          for (const name of readdirSync(dir)) {
            if (name.startsWith(".")) continue;
            if (name.startsWith("@")) for (const scoped of readdirSync(join(dir, name))) visit(join(dir, name, scoped));
            else visit(join(dir, name));
          }
        };
        walkPackages(nodeModules);
        for (const dirs of found.values()) dirs.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
        return found;
      };
      const skip = Symbol("resolved by one-copy-per-package-version");
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === skip || !args.importer.includes(inNodeModules)) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: skip,
        });
        if (resolved.errors.length > 0 || resolved.external || !resolved.path.includes(inNodeModules)) return undefined;
        // The package's folder: the path up to the package's name after the last node_modules/.
        const at = resolved.path.lastIndexOf(inNodeModules) + inNodeModules.length;
        const rest = resolved.path.slice(at).split(sep);
        const packageDir = resolved.path.slice(0, at) + rest.slice(0, rest[0]?.startsWith("@") ? 2 : 1).join(sep);
        const key = packageKey(packageDir);
        if (key === undefined || key === null) return undefined;
        copies ??= findCopies();
        const chosen = copies.get(key)?.[0];
        if (chosen === undefined || chosen === packageDir) return undefined;
        return { path: join(chosen, relative(packageDir, resolved.path)), sideEffects: resolved.sideEffects };
      });
    },
  };

  await esbuild.build({
    entryPoints: [serverEntry],
    outdir: dirname(entry),
    entryNames: "[name]",
    chunkNames: "main-[name]-[hash]",
    splitting: true,
    minifyWhitespace: true,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    sourcesContent: false,
    logLevel: "warning",
    external: ["pino-pretty", "pg-native", "@node-rs/argon2"],
    // The CommonJS packages inside the bundle call `require`, which an ES module lacks.
    banner: {
      js: 'import { createRequire as bundleCreateRequire } from "node:module"; const require = bundleCreateRequire(import.meta.url);',
    },
    plugins: [
      oneCopyPerVersion,
      {
        name: "own-file-url",
        setup(build) {
          build.onLoad({ filter: /\.ts$/ }, (args) => {
            if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
            const source = readFileSync(args.path, "utf8");
            if (!source.includes("import.meta.url")) return { contents: source, loader: "ts" };
            let own = relative(dirname(entry), join(dist, relative(root, args.path)).replace(/\.ts$/, ".js"));
            if (!own.startsWith(".")) own = `./${own}`;
            const url = `new URL(${JSON.stringify(own.split("\\").join("/"))}, import.meta.url).href`;
            return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
          });
        },
      },
    ],
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
  for (const file of generatedFiles.filter((path) => path.endsWith(".yaml"))) {
    const target = join(dist, relative(root, file));
    cpSync(file, target);
    writeFileSync(target.replace(/\.yaml$/, ".json"), JSON.stringify(parseYaml(readFileSync(file, "utf8"))));
  }
  writeFileSync(serverStampFile, serverStamp);
}

// The dashboard's web app: dashboard/vite.config.ts, into <dist>/painel (not with `withPanel`
// false: the tests' server processes never open /painel).
if (withPanel && !panelFresh) {
  const { build } = await import("vite");
  await build({
    configFile: join(root, "dashboard/vite.config.ts"),
    build: { outDir: panelDir, emptyOutDir: true },
    logLevel: "warn",
  });
  writeFileSync(panelStampFile, panelStamp);
}
// The documentation site. A failure here does not stop the server from starting: /docs then says,
// in Portuguese, how to build it (`npm run docs:build`), and the API references are served anyway.
if (docsBuilder && !docsFresh) {
  try {
    await docsBuilder.buildDocs(docsDir);
  } catch (error) {
    rmSync(docsDir, { recursive: true, force: true });
    console.error(
      `build: a documentação não foi construída (${error instanceof Error ? error.message : error}); /docs dirá como construí-la.`,
    );
  }
}
if (!process.argv.includes("--quiet"))
  console.log(`build: ${entryPoints.length} arquivos, o painel e a documentação em ${relative(root, dist)}/`);
