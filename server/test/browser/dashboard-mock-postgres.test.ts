import { createServer, type Server } from "node:http";
import express from "express";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Secret, TOTP } from "otpauth";
import { startPrism, type RunningPrism } from "../../../scripts/prism.js";
import { mountPanel } from "../../src/http/panel.js";
import { chromiumPath, closeContexts, hasChromium, sharedChromium } from "../support/chromium.js";
import { buildPanel, freePort, lookAt, openBrowserTab } from "../support/panel.js";
import { postgresStore, type StartedServer } from "../support/stores.js";

// Two more runs of the dashboard's web app in one browser (issue 26): against the Prism mock, and
// the main journey on the PostgreSQL store.
//
// The project's promise that the mock serves every consumer of the spec: the built web
// app, in Chromium, against the Prism mock of generated/dashboard-openapi.yaml instead of the
// server. The app is served as the server serves it (/painel); /dashboard/… goes to Prism, with
// the session cookie a log-in would have left (Prism checks that it is there, not its value).

let prism: RunningPrism;
let site: Server;
let browser: Browser;
let origin: string;
let panelDirectory: string;

// One browser and one build of the app for the file.
beforeAll(async () => {
  panelDirectory = await buildPanel();
  if (hasChromium) browser = await sharedChromium();
}, 120_000);

afterAll(async () => {
  await closeContexts(browser);
});

describe.skipIf(!hasChromium)(
  `dashboard web app against the Prism mock${hasChromium ? "" : ` (skipped: no ${chromiumPath})`}`,
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      const [prismPort, sitePort] = await Promise.all([freePort(), freePort()]);
      const dir = panelDirectory;
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
    }, 120_000);

    afterAll(async () => {
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
        ["recorrencias", "Recorrências"],
        ["saldo", "Saldo e saques"],
        ["clientes", "Clientes"],
        ["disputas", "Disputas (MED)"],
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
        // Prism builds an operation's answer at its first request: the events list (a union of
        // every event's object) takes 3 s or more on a loaded machine, past expect.poll's 1 s.
        await expect.poll(() => page.getByText("Carregando…").count(), { message: path, timeout: 15_000 }).toBe(0);
        expect(await page.getByRole("alert").count(), path).toBe(0);
        wrong.push(...(await lookAt(page, `mock-${path.replaceAll("/", "-")}`)));
      }
      expect(wrong).toEqual([]);
      expect(problems).toEqual([]);
    });
  },
);

const onPostgres = postgresStore("painel");

onPostgres.describe("dashboard web app on the PostgreSQL store", { timeout: 60_000 }, () => {
  let started: StartedServer;
  let pgOrigin: string;

  beforeAll(async () => {
    const port = await freePort();
    pgOrigin = `http://localhost:${port}`;
    started = await onPostgres.start({ port, publicBaseUrl: pgOrigin, panelDirectory });
  }, 120_000);

  afterAll(async () => {
    await started?.stop();
  });

  test.skipIf(!hasChromium)(
    "when a merchant signs up, confirms the e-mail, turns on two-factor authentication, logs in with its code and a payer pays its link, then the charge is in its transactions",
    async () => {
      const { server } = started;
      const { page, problems } = await openBrowserTab(
        () =>
          browser.newContext({
            viewport: { width: 1280, height: 800 },
            locale: "pt-BR",
            timezoneId: "America/Sao_Paulo",
          }),
        pgOrigin,
        (status, url) => (status === 401 && url.endsWith("/dashboard/v1/session")) || status === 401,
      );
      const email = `pg.${process.pid}@loja.example.com.br`;
      const password = "correto cavalo bateria grampo";
      await page.goto(`${pgOrigin}/painel/cadastro`);
      await page.getByLabel("Seu nome").fill("Maria Souza");
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Senha").fill(password);
      await page.getByLabel("Nome do negócio").fill("Loja Exemplo Ltda");
      await page.getByRole("button", { name: "Criar conta" }).click();
      await page.getByRole("heading", { name: "Olá, Maria" }).waitFor();
      const link = /https?:\/\/\S+\/painel\/confirmar-email\?token=[\w-]{43}/.exec(
        server.mail.filter((m) => m.to === email).at(-1)?.text ?? "",
      )?.[0];
      await page.goto(link ?? "");
      await page.getByText("E-mail confirmado. Obrigado!").waitFor();

      await page.goto(`${pgOrigin}/painel/teste/configuracoes/seguranca`);
      await page.getByLabel("Sua senha").fill(password);
      await page.getByRole("button", { name: "Ativar a verificação em duas etapas" }).click();
      // Shown in groups of four (`ABCD EFGH …`), typed without the spaces, as a person would.
      const secret = (await page.getByText(/^[A-Z2-7]{4}( [A-Z2-7]{1,4}){3,}$/).innerText()).replace(/\s/g, "");
      const code = () => {
        const value = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
          timestamp: server.clock.now().getTime(),
        });
        server.clock.advance(30);
        return value;
      };
      await page.getByLabel("Código do aplicativo").fill(code());
      await page.getByRole("button", { name: "Confirmar e ativar" }).click();
      await page.getByRole("button", { name: "Já guardei" }).click();
      await page.getByRole("button", { name: "Sair" }).click();
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Senha").fill(password);
      await page.getByRole("button", { name: "Entrar" }).click();
      await page.getByLabel("Código").fill(code());
      await page.getByRole("button", { name: "Confirmar" }).click();
      await page.getByRole("heading", { name: "Olá, Maria" }).waitFor();

      await page.getByRole("link", { name: "Links de pagamento" }).click();
      await page.getByLabel("Valor (R$)").fill("25,00");
      await page.getByLabel("Descrição").fill("Aula avulsa");
      await page.getByRole("button", { name: "Criar link" }).click();
      await page.getByRole("status").getByRole("link", { name: "Aula avulsa" }).click();
      const url = await page.getByRole("region", { name: "Endereço para o pagador" }).locator("code").innerText();
      const payer = await page.context().newPage();
      await payer.goto(url);
      await payer.getByLabel("Nome completo").fill("Ana Pagadora");
      await payer.getByLabel("E-mail").fill("ana@example.com.br");
      await payer.getByLabel("Celular com DDD").pressSequentially("11987654321");
      await payer.getByLabel("CPF ou CNPJ").pressSequentially("52998224725");
      await payer.getByRole("button", { name: "Gerar Pix de R$ 25,00" }).click();
      await payer.getByRole("button", { name: "Simular pagamento" }).click();
      await payer.getByRole("heading", { name: "Pagamento confirmado" }).waitFor();
      await payer.close();
      await page.getByRole("link", { name: "Transações" }).click();
      const row = page
        .getByRole("region", { name: "Lista de transações" })
        .getByRole("row")
        .filter({ hasText: "Ana Pagadora" });
      await row.waitFor();
      expect(await row.innerText()).toContain("Paga");
      expect(problems).toEqual([]);
    },
  );
});
