import { createServer, type Server } from "node:http";
import express from "express";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPrism, type RunningPrism } from "../../../scripts/prism.js";
import { mountPanel } from "../../src/http/panel.js";
import { chromiumPath, hasChromium, launchChromium } from "../support/chromium.js";
import { buildPanel, freePort, lookAt, openBrowserTab } from "../support/panel.js";

// The project's promise that the mock serves every consumer of the spec (issue 26): the built web
// app, in Chromium, against the Prism mock of generated/dashboard-openapi.yaml instead of the
// server. The app is served as the server serves it (/painel); /dashboard/… goes to Prism, with
// the session cookie a log-in would have left (Prism checks that it is there, not its value).

let prism: RunningPrism;
let site: Server;
let browser: Browser;
let origin: string;

describe.skipIf(!hasChromium)(
  `dashboard web app against the Prism mock${hasChromium ? "" : ` (skipped: no ${chromiumPath})`}`,
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      const [dir, prismPort, sitePort] = await Promise.all([buildPanel(), freePort(), freePort()]);
      prism = await startPrism({ port: prismPort, document: "generated/dashboard-openapi.yaml" });
      const app = express();
      app.use("/dashboard", express.raw({ type: () => true, limit: "1mb" }), async (req, res) => {
        const headers = new Headers();
        for (const name of ["content-type", "accept", "x-csrf-token", "idempotency-key"]) {
          const value = req.headers[name];
          if (typeof value === "string") headers.set(name, value);
        }
        headers.set("cookie", "__Host-pix_session=mock");
        const answer = await fetch(`${prism.baseUrl}${req.originalUrl}`, {
          method: req.method,
          headers,
          body: req.method === "GET" || req.method === "HEAD" ? undefined : (req.body as Buffer),
        });
        res.status(answer.status);
        const type = answer.headers.get("content-type");
        if (type) res.setHeader("content-type", type);
        res.send(Buffer.from(await answer.arrayBuffer()));
      });
      mountPanel(app, dir);
      site = createServer(app);
      await new Promise<void>((done) => site.listen(sitePort, "127.0.0.1", done));
      origin = `http://localhost:${sitePort}`;
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((done) => site?.close(done));
      await prism?.stop();
    });

    test("when the app opens against the mock, then its main screens render the document's examples without an error", async () => {
      const { page, problems } = await openBrowserTab(
        () =>
          browser.newContext({
            viewport: { width: 1280, height: 800 },
            locale: "pt-BR",
            timezoneId: "America/Sao_Paulo",
          }),
        origin,
      );
      const wrong: string[] = [];
      await page.goto(`${origin}/painel/teste`);
      // The example session: Maria Souza of Loja Exemplo Ltda, not verified.
      await page.getByRole("heading", { name: "Olá, Maria" }).waitFor();
      expect(await page.locator("header").innerText()).toContain("Loja Exemplo Ltda");
      await page.getByRole("region", { name: "Recebido hoje" }).waitFor();
      await page.locator("canvas").first().waitFor();
      wrong.push(...(await lookAt(page, "mock-inicio")));
      const screens: [string, string][] = [
        ["transacoes", "Transações"],
        ["links", "Links de pagamento"],
        ["saldo", "Saldo e saques"],
        ["desenvolvedores/chaves", "Chaves de API"],
        ["desenvolvedores/webhooks", "Endpoints de webhook"],
        ["desenvolvedores/eventos", "Eventos"],
        ["configuracoes/perfil", "Você"],
        ["configuracoes/sessoes", "Sessões abertas"],
        ["configuracoes/equipe", "Membros"],
        ["configuracoes/conta", "Plano e tarifas"],
        ["configuracoes/regras", "Regras de segurança da conta"],
        ["configuracoes/auditoria", "Registro de auditoria"],
      ];
      for (const [path, heading] of screens) {
        await page.goto(`${origin}/painel/teste/${path}`);
        await page.getByRole("heading", { name: heading }).waitFor();
        await expect.poll(() => page.getByText("Carregando…").count()).toBe(0);
        expect(await page.getByRole("alert").count(), path).toBe(0);
        wrong.push(...(await lookAt(page, `mock-${path.replaceAll("/", "-")}`)));
      }
      expect(wrong).toEqual([]);
      expect(problems).toEqual([]);
    });
  },
);
