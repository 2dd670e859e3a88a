import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The dashboard's web app (issue 26): built by `npm run build` (scripts/build.mjs) into
// dist/painel, which the server serves at /painel; `npm run dev` (scripts/dev.ts) serves it with
// hot reload and sends /dashboard, /api and /checkout to the server it starts beside.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/painel/",
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../dist/painel", import.meta.url)),
    emptyOutDir: true,
    // No inline script or style anywhere (the CSP of /painel): no preload polyfill, no data: URLs.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
