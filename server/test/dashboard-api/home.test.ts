import { beforeAll, expect, test } from "vitest";
import { byId, chargeBody, expectStatus } from "../harness.js";
import { dashboardBrowser, type DashboardBrowser } from "../support/dashboard.js";
import { dashboardMerchant, memberOf, paidTestCharge } from "../support/merchant.js";
import { eachStore, serverOn } from "../support/stores.js";

// The dashboard's home figures (issue 25 §2) through the real HTTP stack on both stores: what was
// received per Brasília day (a payment at 23:50 in Brasília is the day before in UTC's terms, and
// the other way round), the ticket médio, the charges by status, the open disputes and the balance,
// of the user's own account in the mode of the path only.

/** An instant given in Brasília time (UTC-3, Brazil has kept no daylight saving time since 2019). */
const brasilia = (local: string) => new Date(`${local}-03:00`).toISOString();

/** The home figures as the merchant reads them now, logged in anew at the test clock's now. */
async function homeOf(merchant: { logIn: () => Promise<DashboardBrowser> }, mode: "test" | "production") {
  const browser = await merchant.logIn();
  const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/home", { params: { path: { mode } } });
  expectStatus(answer, 200);
  return answer.body;
}

for (const store of eachStore("dashboard_home")) {
  store.describe(`dashboard home figures on the ${store.name} store`, () => {
    const server = serverOn(store);
    // The server builds each document's request check at its first request (seconds on a busy
    // machine): made here, once, so that no test pays it against its own time limit.
    beforeAll(async () => {
      const warm = await dashboardMerchant(server);
      await paidTestCharge(warm.api, 1_000);
      await homeOf(warm, "test");
    }, 60_000);

    test("when charges are paid either side of a Brasília midnight, then each counts on its Brasília day, the 30 days hold every day (zeros too), and the ticket médio and statuses follow", async () => {
      const merchant = await dashboardMerchant(server);
      const { api } = merchant;
      server.clock.set(brasilia("2026-10-25T12:00:00"));
      await paidTestCharge(api, 7_000); // the day before the 30 days
      server.clock.set(brasilia("2026-11-23T23:50:00")); // 02:50 on the 24th in UTC
      await paidTestCharge(api, 12_990);
      server.clock.set(brasilia("2026-11-24T00:10:00"));
      await paidTestCharge(api, 10_000);
      await paidTestCharge(api, 5_000);
      expectStatus(await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 2_000 }) }), 201);
      const expiring = await api.POST("/api/v1/charges/pix", {
        body: chargeBody({ amountCents: 3_000, expiresAt: brasilia("2026-11-24T01:00:00") }),
      });
      expectStatus(expiring, 201);
      const cancelled = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 4_000 }) });
      expectStatus(cancelled, 201);
      expectStatus(await api.POST("/api/v1/transactions/{id}/cancel", byId(cancelled.body.id)), 200);
      server.clock.set(brasilia("2026-11-24T15:00:00"));

      const home = await homeOf(merchant, "test");

      expect(home.livemode).toBe(false);
      expect(home.asOf).toBe(brasilia("2026-11-24T15:00:00"));
      expect(home.today).toEqual({ date: "2026-11-24", amountCents: 15_000, count: 2 });
      const { days, ...period } = home.last30Days;
      expect(days).toHaveLength(30);
      expect(days[0]?.date).toBe("2026-10-26");
      expect(days[28]).toEqual({ date: "2026-11-23", amountCents: 12_990, count: 1 });
      expect(days[29]).toEqual(home.today);
      expect(days.slice(0, 28).every((d) => d.amountCents === 0 && d.count === 0)).toBe(true);
      expect(new Set(days.map((d) => d.date)).size).toBe(30);
      expect(period).toEqual({
        from: "2026-10-26",
        to: "2026-11-24",
        amountCents: 27_990,
        count: 3,
        averageTicketCents: 9_330, // 27 990 / 3
        byStatus: { WAITING_PAYMENT: 1, PAID: 3, EXPIRED: 1, CANCELLED: 1, FAILED: 0, PENDING: 0, PROCESSING: 0 },
      });
      const balance = await api.GET("/api/v1/balance");
      expectStatus(balance, 200);
      const { availableCents, pendingCents, blockedCents } = balance.body;
      expect(home.balance).toEqual({ availableCents, pendingCents, blockedCents });
      expect(home.openDisputes).toEqual({ count: 0, amountCents: 0 });
    });

    test("when a dispute opens on a paid charge, then it is counted open with its amount and blocked in the balance, and what was received that day stays", async () => {
      const merchant = await dashboardMerchant(server);
      const { api } = merchant;
      server.clock.set(brasilia("2026-11-24T10:00:00"));
      const paid = await paidTestCharge(api, 12_990);
      await paidTestCharge(api, 8_000);
      expectStatus(await api.POST("/api/v1/sandbox/balance/release"), 200);

      const opened = await api.POST("/api/v1/sandbox/transactions/{id}/dispute", {
        ...byId(paid.id),
        body: { amountCents: 4_000 },
      });
      expectStatus(opened, 201);
      const home = await homeOf(merchant, "test");

      expect(home.openDisputes).toEqual({ count: 1, amountCents: 4_000 });
      expect(home.balance.blockedCents).toBe(4_000);
      expect(home.today).toEqual({ date: "2026-11-24", amountCents: 20_990, count: 2 });
    });

    test("when the clock passes midnight in Brasília (03:00 UTC), then today is the new day, empty, and yesterday keeps its payments", async () => {
      const merchant = await dashboardMerchant(server);
      const { api } = merchant;
      server.clock.set(brasilia("2026-11-24T21:30:00")); // 00:30 on the 25th in UTC
      await paidTestCharge(api, 6_000);
      server.clock.set(brasilia("2026-11-24T23:59:00"));
      const before = await homeOf(merchant, "test");
      server.clock.set(brasilia("2026-11-25T00:01:00"));

      const after = await homeOf(merchant, "test");

      expect(before.today).toEqual({ date: "2026-11-24", amountCents: 6_000, count: 1 });
      expect(after.today).toEqual({ date: "2026-11-25", amountCents: 0, count: 0 });
      expect(after.last30Days.days[28]).toEqual(before.today);
      expect(after.last30Days.from).toBe("2026-10-27");
      expect(after.last30Days.averageTicketCents).toBe(6_000);
    });

    test("when the account has production and test payments and another account has its own, then each mode's figures hold only that mode's, of this account", async () => {
      const merchant = await dashboardMerchant(server, { production: true });
      const { api, live, operator } = merchant;
      const other = await dashboardMerchant(server);
      server.clock.set(brasilia("2026-11-24T11:00:00"));
      await paidTestCharge(api, 1_500);
      await paidTestCharge(other.api, 99_000);
      const production = await live!.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 50_000 }) });
      expectStatus(production, 201);
      expectStatus(await operator.POST("/admin/v1/simulator/transactions/{id}/pay", byId(production.body.id)), 200);

      const testHome = await homeOf(merchant, "test");
      const productionHome = await homeOf(merchant, "production");

      expect(testHome.today).toEqual({ date: "2026-11-24", amountCents: 1_500, count: 1 });
      expect(testHome.last30Days.byStatus.PAID).toBe(1);
      expect(productionHome.livemode).toBe(true);
      expect(productionHome.today).toEqual({ date: "2026-11-24", amountCents: 50_000, count: 1 });
      expect(productionHome.last30Days).toMatchObject({ amountCents: 50_000, count: 1, averageTicketCents: 50_000 });
      expect(productionHome.balance.pendingCents).toBeGreaterThan(0);
      expect(productionHome.balance.pendingCents).not.toBe(testHome.balance.pendingCents);
    });

    test("when a viewer and a developer of the account read the home, then they see the owner's figures", async () => {
      const merchant = await dashboardMerchant(server);
      server.clock.set(brasilia("2026-11-24T12:00:00"));
      await paidTestCharge(merchant.api, 3_300);
      const viewer = await memberOf(server, merchant.accountId, "viewer");
      const developer = await memberOf(server, merchant.accountId, "developer");

      const [owners, viewers, developers] = await Promise.all(
        [merchant, viewer, developer].map((m) => homeOf(m, "test")),
      );

      expect(owners?.today).toEqual({ date: "2026-11-24", amountCents: 3_300, count: 1 });
      expect(viewers).toEqual(owners);
      expect(developers).toEqual(owners);
    });

    test("when no session asks, then 401", async () => {
      const answer = await dashboardBrowser(server.baseUrl).api.GET("/dashboard/v1/modes/{mode}/home", {
        params: { path: { mode: "test" } },
      });
      expect(answer.status).toBe(401);
    });
  });
}
