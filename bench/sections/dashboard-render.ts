import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { components } from "../../generated/dashboard-api.js";
import { mountPanel } from "../../server/src/http/panel.js";
import { launchChromium } from "../../server/test/support/chromium.js";

// The transactions screen of the dashboard web app (issue 26): from the moment the answer with a
// page of 100 transactions has arrived to the moment its 100 rows are on the screen, in Debian's
// Chromium. The app is the production build; the API is a stand-in answering a session and the
// page at once, so only the app's own work is timed (parsing, React, the DOM), not the server's.

type Transaction = components["schemas"]["PixService.Transaction"];
type Session = components["schemas"]["Session"];

const session: Session = {
  user: {
    id: "usr_bench",
    name: "Maria Souza",
    email: "maria@loja.example.com.br",
    role: "owner",
    emailConfirmed: true,
    twoFactorEnabled: true,
    createdAt: "2026-10-04T15:30:00.000Z",
  },
  account: { id: "acc_bench", name: "Loja Exemplo Ltda", verified: true },
  csrfToken: "q4Vd0sWm1nT8yR2xK6pL9bZ3cF7hJ5gA0eU4iO1wY2t",
  expiresAt: "2099-10-05T03:30:00.000Z",
  idleExpiresAt: "2099-10-04T16:00:00.000Z",
  stepUpExpiresAt: null,
  twoFactorSetupRequired: false,
};

function transaction(i: number): Transaction {
  const at = new Date(Date.UTC(2026, 9, 4, 15, 30) - i * 60_000).toISOString();
  return {
    id: `txn_bench${String(i).padStart(6, "0")}`,
    status: i % 3 === 0 ? "WAITING_PAYMENT" : "PAID",
    amountCents: 1000 + i * 37,
    feeCents: 80,
    netAmountCents: 920 + i * 37,
    description: `Pedido #${1000 + i} - Camiseta azul tamanho M`,
    pix: { copyPaste: "00020126580014br.gov.bcb.pix0136bench", qrCode: "00020126580014br.gov.bcb.pix0136bench" },
    customer: {
      id: `cus_bench${i}`,
      name: `Cliente Número ${i}`,
      email: `cliente${i}@example.com.br`,
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
    },
    refundedAmountCents: 0,
    metadata: {},
    livemode: false,
    expiresAt: at,
    paidAt: i % 3 === 0 ? null : at,
    createdAt: at,
    updatedAt: at,
  } as Transaction;
}

/** Median and worst, in ms, of `runs` loads of the transactions screen with a page of 100. */
export async function transactionsScreenRender(
  panelDirectory: string,
  runs: number,
): Promise<{ median: number; worst: number }> {
  const page100 = JSON.stringify({ data: Array.from({ length: 100 }, (_, i) => transaction(i)), hasMore: true });
  const app = express();
  app.get("/dashboard/v1/session", (_req, res) => void res.json(session));
  app.get("/dashboard/v1/modes/test/transactions", (_req, res) => void res.type("json").send(page100));
  mountPanel(app, panelDirectory);
  const server = createServer(app);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // When the 100th row appears, in the page's own clock (an init script is not subject to the CSP).
    await context.addInitScript(`
      new MutationObserver((_, observer) => {
        if (document.querySelectorAll("tbody tr").length >= 100) {
          window.__rowsAt = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    `);
    const page = await context.newPage();
    const times: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      await page.goto(`${origin}/painel/teste/transacoes`);
      // Polled through the debugger protocol: waitForFunction evaluates a string in the page, which the CSP refuses.
      await page.locator("tbody tr").nth(99).waitFor();
      while ((await page.evaluate("window.__rowsAt === undefined")) as boolean) await page.waitForTimeout(10);
      const ms = (await page.evaluate(`(() => {
        const answer = performance.getEntriesByType("resource").find((e) => e.name.includes("/modes/test/transactions"));
        return window.__rowsAt - answer.responseEnd;
      })()`)) as number;
      times.push(ms);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(times.length / 2)] ?? Number.NaN, worst: times.at(-1) ?? Number.NaN };
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
  }
}
