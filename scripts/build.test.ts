import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

// `npm start` runs `scripts/build.mjs --if-needed` first: the server is rebuilt only when what it
// is built from changed (a digest of server/src, generated/, the lockfile and the build script),
// so a start on an unchanged checkout does not build, and a start after any change never runs the
// old build. Checked on a small tree of its own: the build script, a server of one file, the
// repository's node_modules (esbuild).

const root = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);
let tree: string;
const entry = () => join(tree, "dist/server/src/main.js");

const build = (...args: string[]) =>
  run(process.execPath, ["scripts/build.mjs", "--quiet", ...args], { cwd: tree, timeout: 60_000 });
const serve = async () => (await run(process.execPath, [entry()], { cwd: tree, timeout: 10_000 })).stdout.trim();
const writeServer = (text: string) =>
  writeFileSync(
    join(tree, "server/src/main.ts"),
    `const said: string = ${JSON.stringify(text)};\nconsole.log(said);\n`,
  );

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), "pix-build-"));
  for (const dir of ["scripts", "server/src", "generated"]) mkdirSync(join(tree, dir), { recursive: true });
  cpSync(join(root, "scripts/build.mjs"), join(tree, "scripts/build.mjs"));
  cpSync(join(root, "package-lock.json"), join(tree, "package-lock.json"));
  symlinkSync(join(root, "node_modules"), join(tree, "node_modules"));
  writeServer("primeira");
});

afterAll(() => {
  if (tree) rmSync(tree, { recursive: true, force: true });
});

describe("scripts/build.mjs --if-needed (what npm start runs first)", () => {
  test("when nothing changed since the last build, then it builds nothing; when a source changed, then it builds again and the new code runs", async () => {
    // Arrange: a first build.
    await build("--if-needed");
    const first = statSync(entry()).mtimeMs;

    // Act + Assert: unchanged, nothing is written.
    await build("--if-needed");
    expect(statSync(entry()).mtimeMs).toBe(first);
    expect(await serve()).toBe("primeira");

    // Act + Assert: a changed source is built.
    writeServer("segunda");
    await build("--if-needed");
    expect(await serve()).toBe("segunda");

    // Act + Assert: a file only touched (the same content) is not.
    const second = statSync(entry()).mtimeMs;
    writeServer("segunda");
    await build("--if-needed");
    expect(statSync(entry()).mtimeMs).toBe(second);
  });

  test("when a new file appears in generated/ or the lockfile changes, then --if-needed builds again; without --if-needed it always builds", async () => {
    await build("--if-needed");
    const before = statSync(entry()).mtimeMs;

    writeFileSync(join(tree, "generated/new.yaml"), "a: 1\n");
    await build("--if-needed");
    const afterGenerated = statSync(entry()).mtimeMs;
    writeFileSync(join(tree, "package-lock.json"), "{}\n");
    await build("--if-needed");
    const afterLockfile = statSync(entry()).mtimeMs;
    await build();
    const afterPlain = statSync(entry()).mtimeMs;

    expect(afterGenerated).toBeGreaterThan(before);
    expect(afterLockfile).toBeGreaterThan(afterGenerated);
    expect(afterPlain).toBeGreaterThan(afterLockfile);
  });
});
