import { beforeAll, expect, test } from "vitest";
import { expectStatus } from "../harness.js";
import { addMember, type DashboardBrowser, dashboardBrowser, signedUp } from "../support/dashboard.js";
import { recurrenceBody } from "../support/recurrences.js";
import { eachStore, serverOn } from "../support/stores.js";

// Pix Automático from the dashboard (issue 37 §1.2) through the real HTTP stack on both stores: a
// recurrence created, read and listed by the session's user in the mode of the path, its payer's
// moves played in test mode's sandbox (approve, reject, cancel, expire, advance, each attempt),
// its cycle charges in the transaction list, the merchant's cancellation in the audit log, and
// who may do what (the operations' `x-roles`).

const mode = (m: "test" | "production") => ({ params: { path: { mode: m } } });
const inMode = (m: "test" | "production", id: string) => ({ params: { path: { mode: m, id } } });

/** A member of `accountId` with `role`, logged in: its browser. */
async function memberBrowser(server: Parameters<typeof addMember>[0], accountId: string, role: "viewer" | "developer") {
  const { email, password } = await addMember(server, accountId, role);
  const browser = dashboardBrowser(server.baseUrl);
  expectStatus(await browser.api.POST("/dashboard/v1/session", { body: { email, password } }), 201);
  return browser;
}

/** A recurrence the owner creates in test mode: its body. */
async function created(browser: DashboardBrowser, overrides: Parameters<typeof recurrenceBody>[0] = {}) {
  const answer = await browser.api.POST("/dashboard/v1/modes/{mode}/recurrences", {
    ...mode("test"),
    body: recurrenceBody(overrides),
  });
  expectStatus(answer, 201);
  return answer.body;
}

for (const store of eachStore("dashboard_recurrences")) {
  store.describe(`dashboard recurrences on the ${store.name} store`, () => {
    const server = serverOn(store);
    // The first requests of a server build its request checks and hash a first password: once here.
    beforeAll(async () => {
      await signedUp(server);
    }, 120_000);

    test("when the owner creates a journey 2 recurrence and the payer approves it in the sandbox, then its cycle's charge is sent, fails with AM04, is retried and paid, and the recurrence lists it", async () => {
      const { browser } = await signedUp(server);
      const r = await created(browser, { retryPolicy: "RETRY_3_IN_7_DAYS", automaticCharges: true });
      expect(r).toMatchObject({ status: "CREATED", journey: "JOURNEY_2", livemode: false, amountCents: 4990 });
      expect(r.pix.copyPaste).toContain("br.gov.bcb.pix");

      const waiting = await browser.api.GET("/dashboard/v1/modes/{mode}/recurrences", {
        params: { path: { mode: "test" }, query: { status: "CREATED" } },
      });
      expectStatus(waiting, 200);
      expect(waiting.body.data.map((x) => x.id)).toEqual([r.id]);

      const approved = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/approve", {
        ...inMode("test", r.id),
        body: {},
      });
      expectStatus(approved, 200);
      expect(approved.body.status).toBe("APPROVED");
      const advanced = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/advance",
        inMode("test", r.id),
      );
      expectStatus(advanced, 200);
      expect(advanced.body.simulatedDate).not.toBeNull();

      const charges = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
        params: { path: { mode: "test" }, query: { recurrenceId: r.id } },
      });
      expectStatus(charges, 200);
      expect(charges.body.data).toHaveLength(1);
      const charge = charges.body.data[0]!;
      expect(charge).toMatchObject({ recurrenceId: r.id, dueDate: r.firstDate, status: "WAITING_PAYMENT" });

      const failed = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/settle-attempt", {
        ...inMode("test", charge.id),
        body: { outcome: "FAILED", reasonCode: "AM04" },
      });
      expectStatus(failed, 200);
      expect(failed.body.attempts?.map((a) => [a.type, a.status, a.reasonCode])).toEqual([
        ["SCHEDULED", "FAILED", "AM04"],
        ["RETRY", "SCHEDULED", null],
      ]);
      expect(failed.body.attempts?.[0]?.reason).toBe("Saldo ou limite insuficiente na conta do pagador.");
      const paid = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/settle-attempt", {
        ...inMode("test", charge.id),
        body: { outcome: "PAID" },
      });
      expectStatus(paid, 200);
      expect(paid.body.status).toBe("PAID");

      const read = await browser.api.GET("/dashboard/v1/modes/{mode}/recurrences/{id}", inMode("test", r.id));
      expectStatus(read, 200);
      expect(read.body.history.map((h) => h.status)).toEqual(["CREATED", "APPROVED"]);
    });

    test("when the owner creates a journey 3 recurrence with a cycle charge sent by hand, then paying the immediate charge approves it and the cycle's charge is created from the dashboard", async () => {
      const { browser } = await signedUp(server);
      const r = await created(browser, { journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } });
      expect(r.initialTransactionId).toMatch(/^txn_/);
      const refused = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/approve", {
        ...inMode("test", r.id),
        body: {},
      });
      expect(refused.status).toBe(400);

      expectStatus(
        await browser.api.POST(
          "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay",
          inMode("test", r.initialTransactionId ?? ""),
        ),
        200,
      );
      const approved = await browser.api.GET("/dashboard/v1/modes/{mode}/recurrences/{id}", inMode("test", r.id));
      expect(approved.body).toMatchObject({ status: "APPROVED" });
      // The first cycle is 31 days ahead: the calendar moves to the day its charge may be sent.
      expectStatus(
        await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/advance", inMode("test", r.id)),
        200,
      );
      const charge = await browser.api.POST("/dashboard/v1/modes/{mode}/recurrences/{id}/charges", {
        ...inMode("test", r.id),
        body: { dueDate: r.firstDate },
      });
      expectStatus(charge, 201);
      expect(charge.body).toMatchObject({ recurrenceId: r.id, dueDate: r.firstDate, amountCents: 4990 });
    });

    test("when the payer refuses one recurrence, lets another expire and cancels a third, then each reads as the sandbox left it and the customer's list finds them", async () => {
      const { browser } = await signedUp(server);
      const [a, b, c] = [await created(browser), await created(browser), await created(browser)];
      const rejected = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/reject", {
        ...inMode("test", a.id),
        body: {},
      });
      expectStatus(rejected, 200);
      expect(rejected.body.rejection).toEqual({ code: "AP13", reason: "Autorização recusada pelo pagador." });
      const expired = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/expire",
        inMode("test", b.id),
      );
      expectStatus(expired, 200);
      expect(expired.body.status).toBe("EXPIRED");
      const cancelled = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/cancel-by-payer", {
        ...inMode("test", c.id),
        body: {},
      });
      expectStatus(cancelled, 200);
      expect(cancelled.body.cancellation).toMatchObject({ requestedBy: "PAYER", code: "SLDB" });

      const ofCustomer = await browser.api.GET("/dashboard/v1/modes/{mode}/recurrences", {
        params: { path: { mode: "test" }, query: { customerId: a.payer.id } },
      });
      expectStatus(ofCustomer, 200);
      expect(ofCustomer.body.data.map((x) => [x.id, x.status])).toEqual([
        [c.id, "CANCELLED"],
        [b.id, "EXPIRED"],
        [a.id, "REJECTED"],
      ]);
    });

    test("when the owner cancels a recurrence, then it is CANCELLED by the merchant (SLCR), a second cancel is refused, and the audit log names both the creation and the cancellation", async () => {
      const { browser } = await signedUp(server);
      const r = await created(browser);
      const cancelled = await browser.api.POST("/dashboard/v1/modes/{mode}/recurrences/{id}/cancel", {
        params: { path: { mode: "test", id: r.id }, header: { "idempotency-key": "cancelar-1" } },
      });
      expectStatus(cancelled, 200);
      expect(cancelled.body.cancellation).toMatchObject({ requestedBy: "MERCHANT", code: "SLCR" });
      const again = await browser.api.POST("/dashboard/v1/modes/{mode}/recurrences/{id}/cancel", inMode("test", r.id));
      expect(again.status).toBe(400);

      const log = await browser.api.GET("/dashboard/v1/audit-log", { params: { query: { limit: 100 } } });
      expectStatus(log, 200);
      const entries = log.body.data.filter((e) => e.target?.id === r.id);
      expect(entries.map((e) => [e.action, e.target, e.changes])).toEqual([
        ["recurrence.cancelled", { type: "recurrence", id: r.id }, { status: { from: "CREATED", to: "CANCELLED" } }],
        [
          "recurrence.created",
          { type: "recurrence", id: r.id },
          { description: { from: null, to: "Mensalidade Academia Forma" }, amountCents: { from: null, to: 4990 } },
        ],
      ]);
    });

    test("when a viewer or a developer, production, or another account asks, then each is refused as its rule says", async () => {
      const { browser, session } = await signedUp(server);
      const r = await created(browser);
      const viewer = await memberBrowser(server, session.account.id, "viewer");
      const developer = await memberBrowser(server, session.account.id, "developer");
      const stranger = (await signedUp(server)).browser;

      // A viewer reads, but neither creates nor plays the sandbox.
      expectStatus(await viewer.api.GET("/dashboard/v1/modes/{mode}/recurrences/{id}", inMode("test", r.id)), 200);
      const viewerCreates = await viewer.api.POST("/dashboard/v1/modes/{mode}/recurrences", {
        ...mode("test"),
        body: recurrenceBody(),
      });
      expect([viewerCreates.status, (viewerCreates.body as { code?: string }).code]).toEqual([403, "ROLE_FORBIDDEN"]);
      const viewerApproves = await viewer.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/approve", {
        ...inMode("test", r.id),
        body: {},
      });
      expect(viewerApproves.status).toBe(403);
      // A developer plays the sandbox, but does not cancel.
      const developerCancels = await developer.api.POST(
        "/dashboard/v1/modes/{mode}/recurrences/{id}/cancel",
        inMode("test", r.id),
      );
      expect([developerCancels.status, (developerCancels.body as { code?: string }).code]).toEqual([
        403,
        "ROLE_FORBIDDEN",
      ]);
      expectStatus(
        await developer.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/approve", {
          ...inMode("test", r.id),
          body: {},
        }),
        200,
      );

      // Production: no sandbox, and no recurrence before the account is verified.
      const production = await browser.api.POST("/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/advance", {
        ...inMode("production", r.id),
      });
      expect([production.status, (production.body as { code?: string }).code]).toEqual([403, "TEST_MODE_ONLY"]);
      const unverified = await browser.api.POST("/dashboard/v1/modes/{mode}/recurrences", {
        ...mode("production"),
        body: recurrenceBody(),
      });
      expect([unverified.status, (unverified.body as { code?: string }).code]).toEqual([403, "ACCOUNT_NOT_ACTIVE"]);
      // The test recurrence is not in production, nor in another account.
      expect(
        (await browser.api.GET("/dashboard/v1/modes/{mode}/recurrences/{id}", inMode("production", r.id))).status,
      ).toBe(404);
      expect((await stranger.api.GET("/dashboard/v1/modes/{mode}/recurrences/{id}", inMode("test", r.id))).status).toBe(
        404,
      );
      expect((await stranger.api.GET("/dashboard/v1/modes/{mode}/recurrences", mode("test"))).body).toEqual({
        data: [],
        hasMore: false,
      });
    });
  });
}
