/**
 * `npm run dev`: the server, restarted on every change of its sources (tsx watch), and the
 * dashboard's web app with hot reload (Vite's dev server) in front of it. Open
 * http://localhost:5173/painel. Vite serves the app and sends every other path (/dashboard, /api,
 * /checkout, /docs, the documents) to the server on PORT (default 3000). The server's
 * PUBLIC_BASE_URL is Vite's address, so the dashboard API's Origin check, the session cookie and
 * the links of the e-mails all name the one address the browser uses.
 *
 * `npm run dev -- --mock`: the app against the Prism mock of the dashboard document instead of the
 * server (answers are the document's examples; the session cookie is added on the way).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type ProxyOptions } from "vite";
import { startPrism } from "./prism.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const appPort = Number(process.env.DASHBOARD_DEV_PORT ?? 5173);
const appUrl = `http://localhost:${appPort}`;
const mock = process.argv.includes("--mock");

let child: ChildProcess | null = null;
let stopPrism: (() => Promise<void>) | null = null;
let target: string;
if (mock) {
  const prism = await startPrism({
    port: Number(process.env.MOCK_PORT ?? 4010),
    document: "generated/dashboard-openapi.yaml",
  });
  stopPrism = prism.stop;
  target = prism.baseUrl;
} else {
  const apiPort = Number(process.env.PORT ?? 3000);
  target = `http://127.0.0.1:${apiPort}`;
  child = spawn(join(root, "node_modules/.bin/tsx"), ["watch", "server/src/main.ts"], {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      PORT: String(apiPort),
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? appUrl,
    },
  });
}

// Everything outside /painel goes to the server (or the mock); the app's own files stay with Vite.
const proxy: ProxyOptions = mock ? { target, headers: { cookie: "__Host-pix_session=mock" } } : { target, xfwd: false };
const vite = await createServer({
  configFile: join(root, "dashboard/vite.config.ts"),
  server: { port: appPort, strictPort: true, host: "localhost", proxy: { "^/(?!painel(/|$))": proxy } },
});
await vite.listen();
console.log(`Painel com recarga automática: ${appUrl}/painel  (API: ${mock ? `mock Prism em ${target}` : target})`);

const stop = async () => {
  child?.kill("SIGTERM");
  await Promise.allSettled([vite.close(), stopPrism?.()]);
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
