import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

// The dashboard web app's first load (issue 26): the JavaScript a browser must fetch before the
// first screen shows — the entry chunk and every chunk it imports statically, not the ones loaded
// on demand (the chart, the QR encoder) — measured gzip-compressed (level 9, as a server or CDN
// would send it) from a fresh production build.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

export interface FirstLoad {
  /** gzip bytes of the JavaScript of the first load. */
  firstLoadGzip: number;
  /** gzip bytes of the JavaScript loaded later, on demand. */
  lazyGzip: number;
  chunks: number;
}

/** Builds the app, measures its first load, and hands the build to `more` before removing it. */
export async function dashboardFirstLoad(more?: (outDir: string) => Promise<void>): Promise<FirstLoad> {
  const outDir = mkdtempSync(join(tmpdir(), "painel-bench-"));
  try {
    const { build } = await import("vite");
    await build({
      configFile: join(root, "dashboard/vite.config.ts"),
      build: { outDir, emptyOutDir: true, manifest: true },
      logLevel: "error",
    });
    const manifest = JSON.parse(readFileSync(join(outDir, ".vite/manifest.json"), "utf8")) as Record<
      string,
      ManifestChunk
    >;
    const gzip = (file: string) => gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length;
    const first = new Set<string>();
    const visit = (key: string) => {
      if (first.has(key)) return;
      first.add(key);
      for (const next of manifest[key]?.imports ?? []) visit(next);
    };
    for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
    let firstLoadGzip = 0;
    let lazyGzip = 0;
    for (const [key, chunk] of Object.entries(manifest)) {
      if (!chunk.file.endsWith(".js")) continue;
      if (first.has(key)) firstLoadGzip += gzip(chunk.file);
      else lazyGzip += gzip(chunk.file);
    }
    await more?.(outDir);
    return { firstLoadGzip, lazyGzip, chunks: Object.keys(manifest).length };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
