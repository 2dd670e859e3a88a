import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { brasiliaDate } from "../../src/domain/payments/index.js";
import { byId, expectStatus, publicApi, startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { runAdmin, widestLine } from "../support/admin-process.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";

// The operator CLI's settlement simulator for production recurrences (Pix Automático): the same
// moves as the operator API, run against a test server (in this process: support/admin-process.ts).

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const admin = (...args: string[]) => runAdmin(args, { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken });
async function adminText(...args: string[]) {
  const run = await admin(...args);
  expect(run.code, run.stderr).toBe(0);
  expect(widestLine(run.stdout)).toBeLessThanOrEqual(100);
  return run.stdout;
}

describe("admin simulate, recurrences", { timeout: 60_000 }, () => {
  test("when a production recurrence is approved and its cycle's attempt failed then paid, then each step shows it", async () => {
    const { liveKey } = await server.newAccount({ verified: true });
    const api = publicApi(server.baseUrl, { key: liveKey as string });
    const firstDate = dateAfter(brasiliaDate(server.clock.now()), 5);
    const made = await api.POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate, retryPolicy: "RETRY_3_IN_7_DAYS" }),
    });
    expectStatus(made, 201);

    expect(await adminText("simulate", "approve-recurrence", made.body.id)).toMatch(/^status\s+APPROVED$/m);
    const charge = await api.POST("/api/v1/recurrences/{id}/charges", {
      ...byId(made.body.id),
      body: { dueDate: firstDate },
    });
    expectStatus(charge, 201);
    const failed = await adminText(
      "simulate",
      "settle-attempt",
      charge.body.id,
      "--outcome",
      "FAILED",
      "--reason-code",
      "AM04",
    );
    const paid = await adminText("simulate", "settle-attempt", charge.body.id, "--outcome", "PAID");

    expect(failed).toMatch(/^status\s+WAITING_PAYMENT$/m);
    expect(paid).toMatch(/^status\s+PAID$/m);
    expect(await adminText("simulate", "cancel-recurrence", made.body.id, "--by", "PAYER_PSP")).toMatch(
      /^cancellation\.requestedBy\s+PAYER_PSP$/m,
    );
  });

  test("when a production recurrence is rejected through the CLI, then it shows REJECTED with its code; an unknown one exits 1", async () => {
    const { liveKey } = await server.newAccount({ verified: true });
    const made = await publicApi(server.baseUrl, { key: liveKey as string }).POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate: dateAfter(brasiliaDate(server.clock.now()), 30) }),
    });
    expectStatus(made, 201);

    const rejected = await adminText("simulate", "reject-recurrence", made.body.id, "--code", "AP14");
    const unknown = await admin("simulate", "approve-recurrence", "rec_naoexiste0000000000");

    expect(rejected).toMatch(/^rejection\.code\s+AP14$/m);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("NOT_FOUND");
  });
});
