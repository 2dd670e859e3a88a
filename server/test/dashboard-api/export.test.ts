import { parse } from "csv-parse/sync";
import { beforeAll, expect, test } from "vitest";
import type { Store } from "../../src/domain/ports/store.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { chargePayer, startTestServer, type TestServer } from "../harness.js";
import { withdrawalRecord } from "../store/contract.js";
import { dashboardUser, memberOf, storedCharges } from "../support/merchant.js";
import { eachStore, serverOn } from "../support/stores.js";

// The dashboard's CSV exports (issue 25 §2) through the real HTTP stack on both stores, each file
// read back with a CSV parser as a spreadsheet set to pt-BR would: UTF-8 with a byte order mark,
// `;`, CRLF, amounts as `129,90` beside the cents, Brasília dates beside the ISO instant, every
// page of the list (more rows than one page), the list's filters, formulas neutralised, and only
// the user's own account in the mode of the path. The rows are written through the store port
// (hundreds of them, in milliseconds); the home figures' test makes its charges through the API.

const brasilia = (local: string) => new Date(`${local}-03:00`).toISOString();

type Merchant = Awaited<ReturnType<typeof dashboardUser>>;
type Row = Record<string, string>;

/** An export as the browser downloads it: the raw bytes, the answer's headers, the rows parsed. */
async function download(server: TestServer, merchant: Merchant, path: string) {
  const browser = await merchant.logIn();
  const answer = await fetch(`${server.baseUrl}${path}`, {
    headers: { cookie: `__Host-pix_session=${browser.cookie}` },
  });
  const bytes = Buffer.from(await answer.arrayBuffer());
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const parsed =
    answer.status === 200
      ? (parse(text, { bom: true, delimiter: ";", record_delimiter: "\r\n", columns: true }) as Row[])
      : [];
  return { answer, bytes, text, rows: parsed };
}

/** `129,90` for 12990, as the test reads a pt-BR amount: its own arithmetic, not the server's. */
const asReais = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, "0")}`;

for (const store of eachStore("dashboard_export")) {
  store.describe(`dashboard CSV exports on the ${store.name} store`, () => {
    const server = serverOn(store);
    // The server builds the dashboard document's request check at its first request (seconds on a
    // busy machine): made here, once, so that no test pays it against its own time limit.
    beforeAll(async () => {
      await download(server, await dashboardUser(server), "/dashboard/v1/modes/test/withdrawals.csv");
    }, 60_000);

    test("when 230 charges are exported, then the file has a BOM, `;` and CRLF, a header, every charge once (three pages), and each amount as `129,90` beside its cents", async () => {
      const merchant = await dashboardUser(server);
      server.clock.set(brasilia("2026-11-24T15:30:00"));
      const ids = await storedCharges(server, merchant.accountId, 230, { paidEvery: 3 });
      const other = await dashboardUser(server);
      await storedCharges(server, other.accountId, 2, { paidEvery: 1 });

      const { answer, bytes, text, rows } = await download(
        server,
        merchant,
        "/dashboard/v1/modes/test/transactions.csv",
      );

      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(answer.headers.get("content-disposition")).toBe('attachment; filename="transacoes-teste-2026-11-24.csv"');
      expect(answer.headers.get("transfer-encoding")).toBe("chunked");
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(text.slice(1).split("\r\n")[0]).toBe(
        "ID;Status;Situação;Valor (R$);Valor (centavos);Tarifa (R$);Tarifa (centavos);Líquido (R$);Líquido (centavos);" +
          "Devolvido (R$);Devolvido (centavos);Descrição;Cliente;E-mail do cliente;Documento do cliente;" +
          "Link de pagamento;Recorrência;Contestação;Criada em;Criada em (ISO);Paga em;Paga em (ISO);Expira em;Expira em (ISO);" +
          // A charge with a due date's columns (issue 38), empty for these.
          "Vencimento;Pagável até;Composição do dia;Valor original (R$);Valor original (centavos);Abatimento (R$);" +
          "Abatimento (centavos);Desconto (R$);Desconto (centavos);Multa (R$);Multa (centavos);Juros (R$);Juros (centavos)",
      );
      expect(text.endsWith("\r\n")).toBe(true);
      expect(text.replaceAll("\r\n", "")).not.toMatch(/[\r\n]/);
      expect(rows).toHaveLength(230);
      expect(new Set(rows.map((r) => r.ID))).toEqual(new Set(ids));
      for (const row of rows) {
        for (const label of ["Valor", "Tarifa", "Líquido", "Devolvido"]) {
          expect(row[`${label} (R$)`]).toBe(asReais(Number(row[`${label} (centavos)`])));
        }
        expect(Number(row["Líquido (centavos)"])).toBe(
          Number(row["Valor (centavos)"]) - Number(row["Tarifa (centavos)"]),
        );
        expect(row["Criada em"]).toBe("24/11/2026 15:30");
        expect(row["Criada em (ISO)"]).toBe(brasilia("2026-11-24T15:30:00"));
        expect(row["Documento do cliente"]).toBe(chargePayer.document);
      }
      const paid = rows.filter((r) => r.Status === "PAID");
      expect(paid).toHaveLength(77);
      // The status in the merchant's words beside the API's code (issue 37 §1.6).
      expect(paid.every((r) => r["Situação"] === "Paga")).toBe(true);
      expect(paid.every((r) => r["Paga em"] === "24/11/2026 15:30")).toBe(true);
      expect(rows.filter((r) => r.Status === "WAITING_PAYMENT").every((r) => r["Paga em"] === "")).toBe(true);
      const first = rows.find((r) => r.ID === ids[0]);
      expect(first).toMatchObject({ "Valor (R$)": "10,00", "Valor (centavos)": "1000" });
    });

    test("when the export is filtered, then it holds exactly the charges the filters select, every page of them", async () => {
      const merchant = await dashboardUser(server);
      server.clock.set(brasilia("2026-11-20T09:00:00"));
      await storedCharges(server, merchant.accountId, 6, { paidEvery: 2 });
      server.clock.set(brasilia("2026-11-21T09:00:00"));
      const later = await storedCharges(server, merchant.accountId, 330, { paidEvery: 3 });
      const filters = new URLSearchParams({ status: "PAID", createdFrom: brasilia("2026-11-21T00:00:00") });

      const { answer, rows } = await download(
        server,
        merchant,
        `/dashboard/v1/modes/test/transactions.csv?${filters.toString()}`,
      );
      const unfiltered = await download(server, merchant, "/dashboard/v1/modes/test/transactions.csv");

      expect(answer.status).toBe(200);
      expect(new Set(rows.map((r) => r.ID))).toEqual(new Set(later.filter((_, n) => n % 3 === 0)));
      expect(rows).toHaveLength(110);
      expect(rows.every((r) => r.Status === "PAID" && r["Criada em"] === "21/11/2026 09:00")).toBe(true);
      expect(unfiltered.rows).toHaveLength(336);
      const byLink = await download(
        server,
        merchant,
        "/dashboard/v1/modes/test/transactions.csv?paymentLinkId=plk_nenhum",
      );
      expect(byLink.answer.status).toBe(200);
      expect(byLink.rows).toEqual([]);
      expect(byLink.text.slice(1).split("\r\n")[0]?.startsWith("ID;Status;")).toBe(true);
    });

    test("when a payer's name and a description start a formula, then the file prefixes them with ' and quotes what needs it", async () => {
      const merchant = await dashboardUser(server);
      const hostile = [
        { description: '=HYPERLINK("http://x.example";"clique")', name: "+55 Maria" },
        { description: "@SUM(A1:A9)", name: "-Joana; Silva" },
        { description: 'Pedido "especial"\nsegunda linha', name: "Maria da Silva" },
      ];
      for (const [n, { description, name }] of hostile.entries()) {
        const createdAt = new Date(Date.parse(server.clock.now().toISOString()) + n * 1000).toISOString();
        await storedCharges(server, merchant.accountId, 1, {
          each: () => ({ description, createdAt, customer: { ...chargePayer, id: "cus_0Fq9ZtR2mXwP8LkA3cD7", name } }),
        });
      }

      const { rows, text } = await download(server, merchant, "/dashboard/v1/modes/test/transactions.csv");

      expect(rows.map((r) => [r["Descrição"], r.Cliente]).reverse()).toEqual([
        [`'=HYPERLINK("http://x.example";"clique")`, "'+55 Maria"],
        ["'@SUM(A1:A9)", "'-Joana; Silva"],
        ['Pedido "especial"\nsegunda linha', "Maria da Silva"],
      ]);
      expect(text).toContain(';"\'=HYPERLINK(""http://x.example"";""clique"")";');
    });

    test("when production is exported, then it holds production's charges only, and test mode's only test mode's", async () => {
      const merchant = await dashboardUser(server);
      const [testCharge] = await storedCharges(server, merchant.accountId, 1, { paidEvery: 1 });
      const [live] = await storedCharges(server, merchant.accountId, 1, {
        livemode: true,
        each: () => ({ amountCents: 7_700 }),
      });

      const production = await download(server, merchant, "/dashboard/v1/modes/production/transactions.csv");
      const testMode = await download(server, merchant, "/dashboard/v1/modes/test/transactions.csv");

      expect(production.answer.headers.get("content-disposition")).toMatch(
        /^attachment; filename="transacoes-producao-/,
      );
      expect(production.rows.map((r) => [r.ID, r["Valor (R$)"]])).toEqual([[live, "77,00"]]);
      expect(testMode.rows.map((r) => r.ID)).toEqual([testCharge]);
    });

    test("when withdrawals are exported, then each is a row with its amounts in reais and cents and its masked key", async () => {
      const merchant = await dashboardUser(server);
      server.clock.set(brasilia("2026-11-24T10:00:00"));
      const at = server.clock.now().toISOString();
      const scope = { accountId: merchant.accountId, livemode: false };
      const made = withdrawalRecord(scope, {
        status: "PARTIALLY_PAID",
        amountCents: 12_990,
        feeCents: 90,
        paidAmountCents: 10_000,
        returnedAmountCents: 2_900,
        pixKey: "52998224725",
        pixKeyType: "CPF",
        failureReason: "=parte recusada pelo banco",
        createdAt: at,
        updatedAt: at,
      });
      await server.store.transaction(async (tx) => {
        await tx.withdrawals.insert(made);
        await tx.withdrawals.insert(withdrawalRecord({ ...scope, livemode: true }, { createdAt: at, updatedAt: at }));
      });

      const { answer, rows } = await download(server, merchant, "/dashboard/v1/modes/test/withdrawals.csv");

      expect(answer.headers.get("content-disposition")).toBe('attachment; filename="saques-teste-2026-11-24.csv"');
      expect(rows).toEqual([
        {
          ID: made.id,
          Status: "PARTIALLY_PAID",
          Situação: "Pago em parte",
          "Valor (R$)": "129,90",
          "Valor (centavos)": "12990",
          "Tarifa (R$)": "0,90",
          "Tarifa (centavos)": "90",
          "Líquido (R$)": "129,00",
          "Líquido (centavos)": "12900",
          "Pago (R$)": "100,00",
          "Pago (centavos)": "10000",
          "Devolvido (R$)": "29,00",
          "Devolvido (centavos)": "2900",
          "Chave Pix": "***.982.247-**",
          "Tipo de chave": "CPF",
          "Motivo da falha": "'=parte recusada pelo banco",
          "Criado em": "24/11/2026 10:00",
          "Criado em (ISO)": at,
          "Atualizado em": "24/11/2026 10:00",
          "Atualizado em (ISO)": at,
        },
      ]);
    });

    test("when a viewer and a finance member of the account export, then they get the owner's file", async () => {
      const owner = await dashboardUser(server);
      await storedCharges(server, owner.accountId, 3, { paidEvery: 2 });
      const viewer = await memberOf(server, owner.accountId, "viewer");
      const finance = await memberOf(server, owner.accountId, "finance");

      const files = await Promise.all(
        [owner, viewer, finance].map((m) => download(server, m, "/dashboard/v1/modes/test/transactions.csv")),
      );

      expect(files.map((f) => f.answer.status)).toEqual([200, 200, 200]);
      expect(files[0]?.rows).toHaveLength(3);
      expect(files[1]?.text).toBe(files[0]?.text);
      expect(files[2]?.text).toBe(files[0]?.text);
    });

    test("when a filter is invalid or there is no session, then the answer is the JSON error, not a file", async () => {
      const merchant = await dashboardUser(server);

      const invalid = await download(server, merchant, "/dashboard/v1/modes/test/transactions.csv?createdFrom=ontem");
      const anonymous = await fetch(`${server.baseUrl}/dashboard/v1/modes/test/withdrawals.csv`);

      expect(invalid.answer.status).toBe(400);
      expect(invalid.answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(JSON.parse(invalid.text)).toMatchObject({ code: "VALIDATION_ERROR" });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("content-disposition")).toBeNull();
    });
  });
}

/** A memory store whose transaction list fails from the page `failFrom` on (1: the first). */
function failingStore(failFrom: { page: number }): Store {
  const memory = new MemoryStore();
  const transactions = memory.read.transactions;
  return {
    transaction: (work) => memory.transaction(work),
    ping: () => memory.ping(),
    close: () => memory.close(),
    watchDeliveries: (listener) => memory.watchDeliveries(listener),
    recordKeyUse: (keyId, at) => memory.recordKeyUse(keyId, at),
    exportLeases: memory.exportLeases,
    requestLogs: memory.requestLogs,
    read: {
      ...memory.read,
      transactions: {
        ...transactions,
        list: async (scope, filter, page) => {
          const pageNumber = page.startingAfter === undefined ? 1 : 2;
          if (pageNumber >= failFrom.page && page.limit === 100) throw new Error("disco cheio (falha de teste)");
          return transactions.list(scope, filter, page);
        },
      },
    },
  };
}

test("when the store fails after the first page was sent, then the connection is cut: the client gets no complete file", async () => {
  const failFrom = { page: 99 };
  const server = await startTestServer({ store: failingStore(failFrom) });
  try {
    const { browser, accountId } = await dashboardUser(server);
    await storedCharges(server, accountId, 101);
    const headers = { cookie: `__Host-pix_session=${browser.cookie}` };
    failFrom.page = 2;

    const answer = await fetch(`${server.baseUrl}/dashboard/v1/modes/test/transactions.csv`, { headers });
    const body = answer.text();

    expect(answer.status).toBe(200);
    await expect(body).rejects.toThrow();
    failFrom.page = 1;
    const refused = await fetch(`${server.baseUrl}/dashboard/v1/modes/test/transactions.csv`, { headers });
    expect(refused.status).toBe(500);
    expect(refused.headers.get("content-disposition")).toBeNull();
    expect(await refused.json()).toMatchObject({ ok: false, code: "INTERNAL_ERROR" });
  } finally {
    await server.close();
  }
});
