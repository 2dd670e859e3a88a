import { parse } from "csv-parse/sync";
import { beforeAll, expect, test } from "vitest";
import type { components } from "../../../generated/dashboard-api.js";
import { chargePayer, expectStatus } from "../harness.js";
import { type DashboardBrowser, signedUp } from "../support/dashboard.js";
import { dashboardMerchant, memberOf } from "../support/merchant.js";
import { eachStore, serverOn } from "../support/stores.js";

// Charges with a due date from the dashboard (issue 38) through the real HTTP stack on both
// stores: the create form's preview (the amounts of today, the due date, a week after it and a
// chosen date, by the function that prices the charge), its refusals on the fields, the creation,
// the transaction list's `kind=DUE_DATE` filter, and the CSV's due date and breakdown columns.
// The amounts are the acceptance table, computed by hand: R$ 500,00 due Friday
// 2030-12-13, 2 % fine, 1 % a month interest (the month as 30 days), R$ 10,00 off until
// Wednesday 2030-12-11, seen on Tuesday 2030-12-10.
// - Today (Tuesday): 50 000 − 1 000 = 49 000.
// - On the due date: 50 000.
// - A week late (2030-12-20): fine 1 000; interest 50 000 × 1 % ÷ 30 × 7 = 116,67 → 117; 51 117.
// - Ten days late (2030-12-23): fine 1 000; interest 166,67 → 167; 51 167.

type PreviewBody = components["schemas"]["DueDateChargePreviewRequest"];
type CreateBody = components["schemas"]["PixService.CreateDueDateChargeRequest"];

/** Tuesday 2030-12-10, 10:00 in Brasília. */
const tuesday = new Date("2030-12-10T13:00:00.000Z");

const terms = {
  amountCents: 50000,
  dueDate: "2030-12-13",
  daysPayableAfterDue: 30,
  fine: { mode: "PERCENTAGE", rateBps: 200 },
  interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
  discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2030-12-11", amountCents: 1000 }] },
} satisfies PreviewBody;

const createBody = (): CreateBody => ({
  ...terms,
  description: "Mensalidade dezembro/2030 - Escola Exemplo",
  customer: { ...chargePayer },
});

const inTest = { params: { path: { mode: "test" as const } } };

const preview = (browser: DashboardBrowser, body: PreviewBody, mode: "test" | "production" = "test") =>
  browser.api.POST("/dashboard/v1/modes/{mode}/charges/due-date/preview", { params: { path: { mode } }, body });

for (const store of eachStore("dashboard_due_date")) {
  store.describe(`dashboard charges with a due date on the ${store.name} store`, () => {
    const server = serverOn(store);
    beforeAll(async () => {
      server.clock.set(tuesday);
      await signedUp(server);
    }, 120_000);

    test("when the owner previews the acceptance's terms with a chosen date, then today, the due date, a week after and the chosen date owe the hand-computed amounts, and nothing is created", async () => {
      server.clock.set(tuesday);
      const { browser } = await signedUp(server);

      const answer = await preview(browser, { ...terms, paymentDates: ["2030-12-23"] });

      expectStatus(answer, 200);
      expect(answer.body).toMatchObject({
        today: "2030-12-10",
        adjustedDueDate: "2030-12-13",
        lastPayableDate: "2031-01-13",
      });
      expect(
        answer.body.amounts.map((a) => [
          a.kind,
          a.paymentDate,
          a.discountCents,
          a.fineCents,
          a.interestCents,
          a.finalCents,
        ]),
      ).toEqual([
        ["TODAY", "2030-12-10", 1000, 0, 0, 49000],
        ["DUE_DATE", "2030-12-13", 0, 0, 0, 50000],
        ["WEEK_AFTER_DUE_DATE", "2030-12-20", 0, 1000, 117, 51117],
        ["CHOSEN", "2030-12-23", 0, 1000, 167, 51167],
      ]);
      // The default plan: 80 cents a charge.
      expect(answer.body.amounts.map((a) => [a.payable, a.feeCents, a.netAmountCents])[0]).toEqual([true, 80, 48920]);
      const list = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", inTest);
      expectStatus(list, 200);
      expect(list.body.data).toEqual([]);
    });

    test.each([
      {
        name: "a discount date after the due date",
        body: {
          ...terms,
          discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2030-12-16", amountCents: 1000 }] },
        },
        path: "discount.dates.0.date",
        message: "não pode ser posterior ao vencimento (2030-12-13)",
      },
      {
        name: "a due date in the past",
        body: { ...terms, dueDate: "2030-12-09", discount: undefined },
        path: "dueDate",
        message: "não pode ser anterior a hoje (2030-12-10)",
      },
      {
        name: "a discount reaching the amount",
        body: {
          ...terms,
          discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2030-12-11", amountCents: 50000 }] },
        },
        path: "discount.dates.0.amountCents",
        message: "o desconto até 2030-12-11 (R$ 500,00) alcança o valor da cobrança (R$ 500,00)",
      },
      {
        name: "a chosen date before today",
        body: { ...terms, paymentDates: ["2030-12-09"] },
        path: "paymentDates.0",
        message: "não pode ser anterior a hoje (2030-12-10)",
      },
    ] satisfies { name: string; body: PreviewBody; path: string; message: string }[])(
      "when the preview is asked with $name, then 400 VALIDATION_ERROR names the field in Portuguese",
      async ({ body, path, message }) => {
        server.clock.set(tuesday);
        const { browser } = await signedUp(server);

        const answer = await preview(browser, body);

        expectStatus(answer, 400);
        expect(answer.body.code).toBe("VALIDATION_ERROR");
        expect(answer.body.errors).toEqual([{ path, message }]);
      },
    );

    test("when a viewer asks for a preview, then 403, and in production the preview answers as in test mode", async () => {
      server.clock.set(tuesday);
      const owner = await dashboardMerchant(server);
      const viewer = await memberOf(server, owner.accountId, "viewer");

      const refused = await preview(viewer.browser, terms);
      const production = await preview(owner.browser, terms, "production");

      expectStatus(refused, 403);
      expectStatus(production, 200);
      expect(production.body.amounts[0]?.finalCents).toBe(49000);
    });

    test("when the owner creates one, then it is a waiting charge owing today's amount, the list's kind=DUE_DATE filter finds only it, and once paid ten days late the CSV has its due date and the breakdown paid", async () => {
      server.clock.set(tuesday);
      const merchant = await dashboardMerchant(server);
      const { browser } = merchant;
      const plain = await merchant.api.POST("/api/v1/charges/pix", {
        body: {
          amountCents: 2500,
          description: "Pão francês",
          customer: { ...chargePayer },
        },
      });
      expectStatus(plain, 201);

      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/charges/due-date", {
        params: { path: { mode: "test" }, header: { "idempotency-key": "mensalidade-dezembro" } },
        body: createBody(),
      });

      expectStatus(created, 201);
      expect(created.body).toMatchObject({ status: "WAITING_PAYMENT", amountCents: 49000 });
      expect(created.body.dueDateCharge?.amountDue).toMatchObject({ discountCents: 1000, finalCents: 49000 });
      const dueOnly = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
        params: { path: { mode: "test" }, query: { kind: "DUE_DATE" } },
      });
      expectStatus(dueOnly, 200);
      expect(dueOnly.body.data.map((t) => t.id)).toEqual([created.body.id]);
      const all = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", inTest);
      expectStatus(all, 200);
      expect(all.body.data).toHaveLength(2);

      server.clock.set(new Date("2030-12-23T15:00:00.000Z"));
      await merchant.logIn();
      const paid = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay", {
        params: { path: { mode: "test", id: created.body.id } },
      });
      expectStatus(paid, 200);
      expect(paid.body.amountCents).toBe(51167);
      const answer = await fetch(`${server.baseUrl}/dashboard/v1/modes/test/transactions.csv?kind=DUE_DATE`, {
        headers: { cookie: `__Host-pix_session=${browser.cookie}` },
      });
      expect(answer.status).toBe(200);
      const rows = parse(await answer.text(), {
        bom: true,
        delimiter: ";",
        record_delimiter: "\r\n",
        columns: true,
      }) as Record<string, string>[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        ID: created.body.id,
        Status: "PAID",
        "Valor (R$)": "511,67",
        Vencimento: "13/12/2030",
        "Pagável até": "13/01/2031",
        "Composição do dia": "23/12/2030",
        "Valor original (R$)": "500,00",
        "Valor original (centavos)": "50000",
        "Abatimento (R$)": "0,00",
        "Desconto (R$)": "0,00",
        "Multa (R$)": "10,00",
        "Multa (centavos)": "1000",
        "Juros (R$)": "1,67",
        "Juros (centavos)": "167",
      });
    });
  });
}
