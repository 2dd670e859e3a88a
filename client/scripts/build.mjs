// Builds the publishable package into client/dist, twice: an ES module build in dist/esm and a
// CommonJS build in dist/cjs (with a package.json saying so), each with its own declarations, so
// `import` and `require` both work and both get types (package.json `exports` picks one).
//
// client/src imports the generated API types from the repository (`../../generated/api.js`), so
// tsc compiles with rootDir = the repository root and emits to dist/<format>/client/src/. tsc never
// copies `.d.ts` inputs, so the generated `api.d.ts` and `dashboard-api.d.ts` are copied to
// dist/<format>/generated/, where the emitted declarations' `../../generated/….js` imports resolve.
// client/src also imports one value module, `generated/rules.ts` (the webhook signature's tolerance,
// written once in the API document's `x-webhook-delivery`), which tsc compiles into
// dist/<format>/generated/rules.js like the client's own files. Nothing is committed twice: the
// copies exist only in dist (ignored by git) and in the packed tarball.

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const clientDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = join(clientDir, "..");
const distDir = join(clientDir, "dist");
/** The generated types client/src imports: the public API's and the dashboard API's. */
const generatedFiles = ["api.d.ts", "dashboard-api.d.ts"];

/** The two builds: tsconfig, output folder and the module type their package.json declares. */
const formats = [
  { name: "esm", tsconfig: "tsconfig.build.json", type: "module" },
  { name: "cjs", tsconfig: "tsconfig.build.cjs.json", type: "commonjs" },
];

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

for (const file of generatedFiles) {
  const path = join(repoRoot, "generated", file);
  if (!existsSync(path))
    fail(`${relative(clientDir, path)} is missing; run \`npm run generate\` at the repository root`);
}

const require = createRequire(import.meta.url);
let tscBin;
try {
  tscBin = require.resolve("typescript/bin/tsc");
} catch {
  // The repository's root `prepare` runs this on every install of the repository, also one without
  // devDependencies (`npm ci --omit=dev` to run a server built beforehand), which needs no client and
  // must not fail. `npm pack` runs it as the client's `prepack` (the published package has no
  // install-time script), and a tarball without dist/ must fail instead.
  const installing = ["ci", "install"].includes(process.env.npm_command ?? "");
  if (installing && process.argv.includes("--skip-without-typescript")) {
    console.log("build: client not built (typescript, a devDependency, is not installed)");
    process.exit(0);
  }
  fail("typescript is not installed; run `npm install` at the repository root");
}

rmSync(distDir, { recursive: true, force: true });

for (const format of formats) {
  const outDir = join(distDir, format.name);
  const tsc = spawnSync(process.execPath, [tscBin, "-p", join(clientDir, format.tsconfig)], {
    cwd: clientDir,
    stdio: "inherit",
  });
  if (tsc.status !== 0) fail(`tsc -p ${format.tsconfig} exited with ${tsc.status ?? tsc.signal}`);

  // Node and TypeScript read a file's module format from the nearest package.json.
  writeFileSync(join(outDir, "package.json"), `${JSON.stringify({ type: format.type }, null, 2)}\n`);

  mkdirSync(join(outDir, "generated"), { recursive: true });
  for (const file of generatedFiles) copyFileSync(join(repoRoot, "generated", file), join(outDir, "generated", file));
  const copiedTypes = join(outDir, "generated", "api.d.ts");

  // Sanity checks: the entry points exist and the declarations' import of the API types resolves.
  const srcDir = join(outDir, "client", "src");
  const rules = join(outDir, "generated", "rules.js");
  for (const file of [join(srcDir, "index.js"), join(srcDir, "index.d.ts"), copiedTypes, rules]) {
    if (!existsSync(file)) fail(`expected ${relative(clientDir, file)} after the build`);
  }
  let generatedImports = 0;
  for (const entry of readdirSync(srcDir, { recursive: true })) {
    const file = join(srcDir, String(entry));
    if (!file.endsWith(".d.ts")) continue;
    for (const match of readFileSync(file, "utf8").matchAll(/from "(\.[^"]*generated\/(?:dashboard-)?api)\.js"/g)) {
      generatedImports++;
      const target = join(dirname(file), `${match[1]}.d.ts`);
      if (!existsSync(target)) fail(`${relative(clientDir, file)} imports ${match[1]}.js, which does not resolve`);
    }
  }
  if (generatedImports === 0) fail("no emitted declaration imports generated/api.js; update scripts/build.mjs");
}

console.log(
  `build: wrote ${relative(clientDir, distDir)}/esm and ${relative(clientDir, distDir)}/cjs (client/src/*.js, *.d.ts and generated/*.d.ts)`,
);
