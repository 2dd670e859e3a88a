import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectStatus, startTestServer, type TestServer } from "../harness.js";
import { chromiumPath, closeContexts, hasChromium, sharedChromium } from "../support/chromium.js";
import { dashboardBrowser, newPerson, signedUp, turnOnTwoFactor } from "../support/dashboard.js";
import { buildPanel, freePort, openBrowserTab, type WatchedPage } from "../support/panel.js";

// Issue 33 §7: the e-mails' links carry a one-time token in the address. Every page of the web app
// that reads one (e-mail confirmation, password reset, invitation) takes it out of the address bar
// and of the history as soon as it opens, and still does its work with it. In Debian's Chromium
// against the real server (memory store). docs/decisions/0041-e-mail-links-ownership-and-identity-housekeeping.md.

let server: TestServer;
let browser: Browser;
let origin: string;
const tabs: WatchedPage[] = [];

/** A browser tab of its own; a 401 of the session probe is expected on these pages. */
async function newTab(): Promise<WatchedPage> {
  const tab = await openBrowserTab(
    () => browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "pt-BR" }),
    origin,
    (status, url) => status === 401 && url.endsWith("/dashboard/v1/session"),
  );
  tabs.push(tab);
  return tab;
}

/** The last link to `path` e-mailed to `to`, and its token. */
function lastLink(to: string, path: string): { link: string; token: string } {
  const mail = server.mail.filter((m) => m.to === to).at(-1);
  const found = mail && new RegExp(`https?://\\S+${path}\\?token=([A-Za-z0-9_-]{43})`).exec(mail.text);
  if (!found?.[1]) throw new Error(`no ${path} link sent to ${to}`);
  return { link: found[0], token: found[1] };
}

/** What the page's address and its history entry hold: the token must be in neither. */
async function addressOf(page: Page): Promise<{ href: string; history: string }> {
  return (await page.evaluate(
    "({ href: window.location.href, history: JSON.stringify(window.history.state) ?? '' })",
  )) as { href: string; history: string };
}

describe.skipIf(!hasChromium)(
  `e-mail links' tokens in the web app${hasChromium ? "" : ` (skipped: no ${chromiumPath})`}`,
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      const [dir, port] = await Promise.all([buildPanel(), freePort()]);
      origin = `http://localhost:${port}`;
      server = await startTestServer({ port, publicBaseUrl: origin, panelDirectory: dir });
      browser = await sharedChromium();
    }, 120_000);

    afterAll(async () => {
      await closeContexts(browser);
      await server?.close();
    });

    test("when the confirmation link is opened, then the token leaves the address at once and the address is confirmed", async () => {
      const { person } = await signedUp(server, { origin }, { confirmEmail: false });
      const { link, token } = lastLink(person.email, "/painel/confirmar-email");
      const { page, problems } = await newTab();

      await page.goto(link);
      await page.getByText("E-mail confirmado. Obrigado!").waitFor();

      const address = await addressOf(page);
      expect(address.href).toBe(`${origin}/painel/confirmar-email`);
      expect(address.history).not.toContain(token);
      expect(problems).toEqual([]);
    });

    test("when the reset link is opened, then the token leaves the address before the form is filled, and the form still resets the password", async () => {
      const { person } = await signedUp(server, { origin });
      expectStatus(
        await dashboardBrowser(server.baseUrl, { origin }).api.POST("/dashboard/v1/password-resets", {
          body: { email: person.email },
        }),
        202,
      );
      const { link, token } = lastLink(person.email, "/painel/redefinir-senha");
      const { page, problems } = await newTab();

      await page.goto(link);
      await page.getByLabel("Nova senha", { exact: true }).waitFor();
      const address = await addressOf(page);
      await page.getByLabel("Nova senha", { exact: true }).fill("outra frase longa e secreta");
      await page.getByLabel("Repita a nova senha").fill("outra frase longa e secreta");
      await page.getByRole("button", { name: "Salvar nova senha" }).click();
      await page.getByText("Senha redefinida.").waitFor();

      expect(address.href).toBe(`${origin}/painel/redefinir-senha`);
      expect(address.history).not.toContain(token);
      expect(page.url()).not.toContain(token);
      expect(problems).toEqual([]);
    });

    test("when the invitation link is opened, then the token leaves the address before the form is filled, and accepting still makes the member", async () => {
      const invitee = newPerson().email;
      const owner = await signedUp(server, { origin });
      await turnOnTwoFactor(server, owner.browser, owner.person.password);
      expectStatus(
        await owner.browser.api.POST("/dashboard/v1/team/invitations", { body: { email: invitee, role: "viewer" } }),
        201,
      );
      const { link, token } = lastLink(invitee, "/painel/aceitar-convite");
      const { page, problems } = await newTab();

      await page.goto(link);
      await page.getByLabel("Seu nome").waitFor();
      const address = await addressOf(page);
      await page.getByLabel("Seu nome").fill("João Lima");
      await page.getByLabel("Senha").fill("correto cavalo bateria grampo");
      await page.getByRole("button", { name: "Aceitar e entrar" }).click();
      await page.getByRole("heading", { name: "Olá, João" }).waitFor();

      expect(address.href).toBe(`${origin}/painel/aceitar-convite`);
      expect(address.history).not.toContain(token);
      expect(problems).toEqual([]);
    });
  },
);
