import { beforeAll, expect, test } from "vitest";
import { brasiliaDay } from "../../src/domain/core/time.js";
import { chargeBody, expectStatus, type TestServer } from "../harness.js";
import { type DashboardBrowser, signedUp, turnOnTwoFactor } from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// The counter and the statement of the dashboard (issue 37 §2) through the real HTTP stack on both
// stores: a charge made at the counter (`POST …/charges/pix`), and the statement (extrato) of a
// period that always adds up to the balance, read from the ledger.

const mode = (m: "test" | "production") => ({ params: { path: { mode: m } } });
const inMode = (m: "test" | "production", id: string) => ({ params: { path: { mode: m, id } } });

type Statement = { opening: Parts; closing: Parts; data: (Parts & Entry)[]; hasMore: boolean };
type Parts = { availableCents: number; pendingCents: number; blockedCents: number; totalCents?: number };
type Entry = {
  id: string;
  type: string;
  amountCents: number;
  feeCents: number;
  grossAmountCents: number;
  balanceAfter: Required<Parts>;
};

/** The statement from `createdFrom` (and to `createdTo`), every page of it. */
async function statementOf(browser: DashboardBrowser, query: { createdFrom?: string; createdTo?: string }) {
  const first = await browser.api.GET("/dashboard/v1/modes/{mode}/statement", {
    params: { path: { mode: "test" }, query: { ...query, limit: 2 } },
  });
  expectStatus(first, 200);
  const data = [...first.body.data];
  let page = first.body;
  while (page.hasMore) {
    const next = await browser.api.GET("/dashboard/v1/modes/{mode}/statement", {
      params: { path: { mode: "test" }, query: { ...query, limit: 2, startingAfter: data.at(-1)?.id } },
    });
    expectStatus(next, 200);
    data.push(...next.body.data);
    page = next.body;
  }
  return { ...first.body, data } as Statement;
}

/** Every movement's balance is the one before it plus its parts; the oldest starts from `opening`. */
function expectRunningBalance(statement: Statement) {
  const oldestFirst = [...statement.data].reverse();
  let before = { ...statement.opening };
  for (const m of oldestFirst) {
    const after = {
      availableCents: before.availableCents + m.availableCents,
      pendingCents: before.pendingCents + m.pendingCents,
      blockedCents: before.blockedCents + m.blockedCents,
    };
    expect(m.balanceAfter).toEqual({
      ...after,
      totalCents: after.availableCents + after.pendingCents + after.blockedCents,
    });
    expect(m.amountCents).toBe(m.availableCents + m.pendingCents + m.blockedCents);
    expect(m.grossAmountCents).toBe(m.amountCents + m.feeCents);
    before = after;
  }
  expect(statement.closing).toEqual({
    ...before,
    totalCents: before.availableCents + before.pendingCents + before.blockedCents,
  });
}

/** The balance `GET …/balance` answers, as the statement's parts. */
async function balanceOf(browser: DashboardBrowser) {
  const balance = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", mode("test"));
  expectStatus(balance, 200);
  const { availableCents, pendingCents, blockedCents } = balance.body;
  return { availableCents, pendingCents, blockedCents, totalCents: availableCents + pendingCents + blockedCents };
}

/** The start of the server's Brasília day, as the API's instant. */
const today = (server: TestServer) => brasiliaDay(server.clock.now()).start.toISOString();

/** A charge made at the counter and paid in the sandbox: the paid transaction. */
async function counterSale(browser: DashboardBrowser, amountCents: number) {
  const created = await browser.api.POST("/dashboard/v1/modes/{mode}/charges/pix", {
    ...mode("test"),
    headers: { "idempotency-key": crypto.randomUUID() },
    body: chargeBody({ amountCents, description: "Balcão — bolo de cenoura" }),
  });
  expectStatus(created, 201);
  expect(created.body).toMatchObject({ status: "WAITING_PAYMENT", amountCents, livemode: false });
  const paid = await browser.api.POST(
    "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay",
    inMode("test", created.body.id),
  );
  expectStatus(paid, 200);
  return paid.body;
}

for (const store of eachStore("dashboard_statement")) {
  store.describe(`the counter and the statement on the ${store.name} store`, () => {
    const server = serverOn(store);
    // The first requests of a server build its request checks and hash a first password: done
    // once here, within the hook's time, not in the first test's.
    beforeAll(async () => {
      await counterSale((await signedUp(server)).browser, 1_000);
    }, 120_000);

    test("when a charge made at the counter is paid, part of it refunded the same day and money withdrawn, then the statement of the day adds up to the balance", async () => {
      const { browser, person } = await signedUp(server);
      const day = today(server);
      const sale = await counterSale(browser, 20_000);
      const refund = await browser.api.POST("/dashboard/v1/modes/{mode}/transactions/{id}/refunds", {
        ...inMode("test", sale.id),
        body: { amountCents: 5_000 },
      });
      expectStatus(refund, 201);
      expectStatus(await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/balance/release", mode("test")), 200);
      await turnOnTwoFactor(server, browser, person.password);
      // Half of it paid, the other half back to the balance (the sandbox's magic key).
      const withdrawal = await browser.api.POST("/dashboard/v1/modes/{mode}/withdrawals", {
        ...mode("test"),
        body: { amountCents: 10_000, pixKey: "parcial@sandbox.pix", pixKeyType: "EMAIL" },
      });
      expectStatus(withdrawal, 201);
      expect(withdrawal.body.status).toBe("PARTIALLY_PAID");

      const statement = await statementOf(browser, { createdFrom: day });
      const balance = await balanceOf(browser);

      const oldestFirst = [...statement.data].reverse();
      expect(oldestFirst.map((m) => m.type)).toEqual([
        "payment",
        "refund",
        "early_release",
        "withdrawal",
        "withdrawal_returned",
      ]);
      expect(oldestFirst[0]).toMatchObject({
        sourceId: sale.id,
        transactionId: sale.id,
        description: "Balcão — bolo de cenoura",
        grossAmountCents: 20_000,
        feeCents: sale.feeCents,
        amountCents: sale.netAmountCents,
        pendingCents: sale.netAmountCents,
        availableCents: 0,
      });
      // Record 0055: a same-day refund comes out of the charge's own pending money.
      expect(oldestFirst[1]).toMatchObject({
        sourceId: refund.body.id,
        transactionId: sale.id,
        amountCents: -5_000,
        pendingCents: -5_000,
      });
      expect(oldestFirst[2]).toMatchObject({ amountCents: 0, availableCents: sale.netAmountCents - 5_000 });
      expect(oldestFirst[3]).toMatchObject({
        sourceId: withdrawal.body.id,
        amountCents: -10_000,
        feeCents: withdrawal.body.feeCents,
        grossAmountCents: -10_000 + withdrawal.body.feeCents,
      });
      expect(oldestFirst[4]).toMatchObject({ amountCents: withdrawal.body.returnedAmountCents });
      expect(statement.opening).toEqual({ availableCents: 0, pendingCents: 0, blockedCents: 0, totalCents: 0 });
      expectRunningBalance(statement);
      expect(statement.closing).toEqual(balance);
      expect(statement.closing.totalCents).toBe(
        sale.netAmountCents - 5_000 - 10_000 + withdrawal.body.returnedAmountCents,
      );
    });

    test("when the release period of a payment ends, then the statement shows its money becoming available then, and a later period opens with it", async () => {
      const { browser, person } = await signedUp(server);
      const day = today(server);
      const sale = await counterSale(browser, 10_000);
      server.clock.advance(86_400 + 60);
      // A day later the session has ended: log in again.
      const login = await browser.api.POST("/dashboard/v1/session", {
        body: { email: person.email, password: person.password },
      });
      expectStatus(login, 201);
      const tomorrow = today(server);
      const later = await counterSale(browser, 5_000);

      const whole = await statementOf(browser, { createdFrom: day });
      const second = await statementOf(browser, { createdFrom: tomorrow });
      const first = await statementOf(browser, { createdFrom: day, createdTo: tomorrow });
      const balance = await balanceOf(browser);

      expect([...whole.data].reverse().map((m) => m.type)).toEqual(["payment", "release", "payment"]);
      const released = whole.data[1];
      expect(released).toMatchObject({
        amountCents: 0,
        availableCents: sale.netAmountCents,
        pendingCents: -sale.netAmountCents,
        sourceId: null,
      });
      expect(released?.id).toMatch(/^rls_\d+$/);
      expectRunningBalance(whole);
      expect(whole.closing).toEqual(balance);
      expect(first.data.map((m) => m.type)).toEqual(["payment"]);
      expectRunningBalance(first);
      // The next day opens with yesterday's sale still pending, released at its instant.
      expect(second.opening).toEqual(first.closing);
      expect(second.opening.pendingCents).toBe(sale.netAmountCents);
      expect([...second.data].reverse().map((m) => m.type)).toEqual(["release", "payment"]);
      expectRunningBalance(second);
      expect(second.closing).toEqual(balance);
      expect(balance).toMatchObject({ availableCents: sale.netAmountCents, pendingCents: later.netAmountCents });
    });

    test("when a MED blocks two sales' money and is won on one and lost on the other, then the statement shows each block and its end, and adds up to the balance", async () => {
      const { browser } = await signedUp(server);
      const day = today(server);
      const won = await counterSale(browser, 10_000);
      const lost = await counterSale(browser, 6_000);
      expectStatus(await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/balance/release", mode("test")), 200);
      for (const [sale, outcome] of [
        [won, "WON"],
        [lost, "LOST"],
      ] as const) {
        const disputed = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/dispute", {
          ...inMode("test", sale.id),
          body: {},
        });
        expectStatus(disputed, 201);
        const resolved = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/disputes/{id}/resolve", {
          ...inMode("test", disputed.body.dispute?.id ?? ""),
          body: { outcome },
        });
        expectStatus(resolved, 200);
      }

      const statement = await statementOf(browser, { createdFrom: day });
      const balance = await balanceOf(browser);

      const oldestFirst = [...statement.data].reverse();
      expect(oldestFirst.map((m) => m.type)).toEqual([
        "payment",
        "payment",
        "early_release",
        "dispute_opened",
        "dispute_won",
        "dispute_opened",
        "dispute_lost",
      ]);
      const [, , , block, unblock, block2, returned] = oldestFirst;
      expect(block).toMatchObject({ amountCents: 0, pendingCents: 0 });
      expect(block?.blockedCents).toBeGreaterThan(0);
      expect(block?.availableCents).toBe(-(block?.blockedCents ?? 0));
      expect(unblock).toMatchObject({
        amountCents: 0,
        availableCents: block?.blockedCents,
        blockedCents: -(block?.blockedCents ?? 0),
      });
      expect(returned).toMatchObject({ amountCents: -(block2?.blockedCents ?? 0), availableCents: 0 });
      expectRunningBalance(statement);
      expect(statement.closing).toEqual(balance);
      expect(balance.blockedCents).toBe(0);
    });

    test("when the statement is exported, then the CSV has each movement with its running balance, named after the mode and day", async () => {
      const { browser } = await signedUp(server);
      const day = today(server);
      const sale = await counterSale(browser, 12_990);
      const statement = await statementOf(browser, { createdFrom: day });

      const csv = await fetch(
        `${server.baseUrl}/dashboard/v1/modes/test/statement.csv?createdFrom=${encodeURIComponent(day)}`,
        {
          headers: { cookie: `__Host-pix_session=${browser.cookie}` },
        },
      );
      const text = await csv.text();

      expect(csv.status).toBe(200);
      expect(csv.headers.get("content-disposition")).toMatch(
        /^attachment; filename="extrato-teste-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const lines = text
        .replace(/^\uFEFF/, "")
        .split("\r\n")
        .filter(Boolean);
      expect(lines[0]).toContain("ID;Tipo;Movimento;Valor bruto (R$)");
      expect(lines).toHaveLength(1 + statement.data.length);
      const fields = lines[1]?.split(";") ?? [];
      expect(fields.slice(0, 5)).toEqual([statement.data[0]?.id, "payment", "Pix recebido", "129,90", "12990"]);
      expect(lines[1]).toContain(`;${sale.netAmountCents};`);
    });

    test("when the cursor names no movement, or a counter charge is asked in production before verification or by a viewer's role, then each is refused", async () => {
      const { browser } = await signedUp(server);
      const unknown = await browser.api.GET("/dashboard/v1/modes/{mode}/statement", {
        params: { path: { mode: "test" }, query: { startingAfter: "led_nenhum" } },
      });
      const production = await browser.api.POST("/dashboard/v1/modes/{mode}/charges/pix", {
        ...mode("production"),
        body: chargeBody({ amountCents: 5_000 }),
      });
      const invalid = await browser.api.POST("/dashboard/v1/modes/{mode}/charges/pix", {
        ...mode("test"),
        body: chargeBody({ amountCents: 100 }),
      });
      const empty = await browser.api.GET("/dashboard/v1/modes/{mode}/statement", mode("production"));

      expectStatus(unknown, 400);
      expect(unknown.body.errors?.[0]?.path).toBe("startingAfter");
      expectStatus(production, 403);
      expect(production.body.code).toBe("ACCOUNT_NOT_ACTIVE");
      expectStatus(invalid, 400);
      expect(invalid.body.code).toBe("VALIDATION_ERROR");
      expectStatus(empty, 200);
      expect(empty.body).toMatchObject({ data: [], hasMore: false, closing: { totalCents: 0 } });
    });
  });
}
