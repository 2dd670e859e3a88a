// Builds the publishable package into client/dist.
//
// client/src imports the generated API types from the repository (`../../generated/api.js`), so
// tsc compiles with rootDir = the repository root and emits to dist/client/src/. tsc never copies
// `.d.ts` inputs, so the generated `api.d.ts` is copied next to it, to dist/generated/api.d.ts, where
// the emitted declarations' `../../generated/api.js` import resolves. Nothing is committed twice:
// the copy exists only in dist (ignored by git) and in the packed tarball.

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const clientDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = join(clientDir, "..");
const distDir = join(clientDir, "dist");
const generatedTypes = join(repoRoot, "generated", "api.d.ts");

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

if (!existsSync(generatedTypes)) {
  fail(`${relative(clientDir, generatedTypes)} is missing; run \`npm run generate\` at the repository root`);
}

rmSync(distDir, { recursive: true, force: true });

const require = createRequire(import.meta.url);
let tscBin;
try {
  tscBin = require.resolve("typescript/bin/tsc");
} catch {
  fail("typescript is not installed; run `npm install` at the repository root");
}

const tsc = spawnSync(process.execPath, [tscBin, "-p", join(clientDir, "tsconfig.build.json")], {
  cwd: clientDir,
  stdio: "inherit",
});
if (tsc.status !== 0) fail(`tsc exited with ${tsc.status ?? tsc.signal}`);

const copiedTypes = join(distDir, "generated", "api.d.ts");
mkdirSync(dirname(copiedTypes), { recursive: true });
copyFileSync(generatedTypes, copiedTypes);

// Sanity checks: the entry points exist and the declarations' import of the API types resolves.
const entryJs = join(distDir, "client", "src", "index.js");
const entryDts = join(distDir, "client", "src", "index.d.ts");
for (const file of [entryJs, entryDts, copiedTypes]) {
  if (!existsSync(file)) fail(`expected ${relative(clientDir, file)} after the build`);
}
let generatedImports = 0;
for (const entry of readdirSync(join(distDir, "client", "src"), { recursive: true })) {
  const file = join(distDir, "client", "src", String(entry));
  if (!file.endsWith(".d.ts")) continue;
  for (const match of readFileSync(file, "utf8").matchAll(/from "(\.[^"]*generated\/api)\.js"/g)) {
    generatedImports++;
    const target = join(dirname(file), `${match[1]}.d.ts`);
    if (!existsSync(target)) fail(`${relative(clientDir, file)} imports ${match[1]}.js, which does not resolve`);
  }
}
if (generatedImports === 0) fail("no emitted declaration imports generated/api.js; update scripts/build.mjs");

console.log(`build: wrote ${relative(clientDir, distDir)}/ (client/src/*.js, *.d.ts and generated/api.d.ts)`);
