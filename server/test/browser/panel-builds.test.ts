import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { pruneOldBuilds } from "../support/panel.js";

// The browser tests' builds of the web app (support/panel.ts `buildPanel`) live in the temporary
// folder, one per version of dashboard/: a new build removes the others no run used for a day.

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("when a new build is made, then builds unused for a day go and recent ones, the new one and other folders stay", () => {
  dir = mkdtempSync(join(tmpdir(), "panel-builds-"));
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
  const make = (name: string, old: boolean) => {
    mkdirSync(join(dir!, name));
    if (old) utimesSync(join(dir!, name), twoDaysAgo, twoDaysAgo);
  };
  make("painel-0123456789abcdef", true); // an old version's build
  make("painel-build-x1Y2z3", true); // a failed build's leftover
  make("painel-fedcba9876543210", false); // used an hour ago by another checkout's run
  make("painel-aaaaaaaaaaaaaaaa", true); // the one just built (renamed into place keeps its time)
  make("painel-notes", true); // not a build
  make("pix-docs-abc", true); // another test's folder

  pruneOldBuilds(join(dir, "painel-aaaaaaaaaaaaaaaa"), dir);

  expect(readdirSync(dir).sort()).toEqual([
    "painel-aaaaaaaaaaaaaaaa",
    "painel-fedcba9876543210",
    "painel-notes",
    "pix-docs-abc",
  ]);
});
