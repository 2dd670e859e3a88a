import { afterAll, beforeAll, expect, test } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { expectStatus, operatorApi, testAdminToken } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { eachStore, serverOn } from "../support/stores.js";

// The operator returns an unmatched receipt to its payer (issue 35 §3, record 0051 "Unmatched
// receipts"): `POST /admin/v1/bank/unmatched-receipts/{endToEndId}/return` and `admin bank return`,
// a devolução of the full amount at the fake bank through the real adapter, on both stores. The
// fake bank settles devoluções only when told (`manual`): each outcome is the test's.

for (const store of eachStore("bank_unmatched_return")) {
  store.describe(`returning unmatched receipts on the ${store.name} store`, () => {
    let bank: FakeBank;
    let client: BankClient | null = null;
    const access: BankAccess = { current: () => Promise.resolve(client), waitMs: 2_000 };
    // The fake bank stamps each Pix with the real time: the service's clock starts at it.
    const server = serverOn(store, { bank: access, clock: new ManualClock(new Date()) });
    const operator = () => operatorApi(server.baseUrl, { token: testAdminToken });
    const env = () => ({ PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken });

    beforeAll(async () => {
      // No webhook registered: the Pix reach the service by the reconciliation.
      ({ bank, client } = await startBankWithClient(
        { tokenTtlSeconds: 3600, refunds: { mode: "manual", delayMs: 0 } },
        { timeoutMs: 2_000 },
      ));
    });
    afterAll(() => closeBankWithClient({ bank, client }));

    /** A Pix to the platform's key without a txid, held unmatched by a reconciliation. */
    const unmatched = async (amountCents: number) => {
      const pix = bank.sendPix({ key: bank.customer.keys[0] ?? "", amountCents });
      await reconcile();
      const row = await listed(pix.endToEndId);
      expect(row).toBeDefined();
      expect(row?.payerReturn).toBeUndefined();
      return pix.endToEndId;
    };
    const reconcile = async () => {
      server.clock.set(new Date(Date.now() + 1_000));
      const run = await operator().POST("/admin/v1/bank/reconciliations", { body: {} });
      expectStatus(run, 200);
    };
    const listed = async (endToEndId: string) => {
      const page = await operator().GET("/admin/v1/bank/unmatched-receipts", { params: { query: { limit: 100 } } });
      expectStatus(page, 200);
      return page.body.data.find((r) => r.endToEndId === endToEndId);
    };
    const returnIt = (endToEndId: string) =>
      operator().POST("/admin/v1/bank/unmatched-receipts/{endToEndId}/return", { params: { path: { endToEndId } } });
    const devolucoesOf = (endToEndId: string) => bank.refunds().filter((d) => d.endToEndId === endToEndId);

    test("when the operator returns a Pix without txid, then the bank gets one devolução of the full amount, the list shows it COMPLETED once returned, and a second return answers 400", async () => {
      const e2e = await unmatched(1_234);
      const first = await returnIt(e2e);
      expectStatus(first, 202);
      expect(first.body.payerReturn).toEqual({ status: "PENDING", id: expect.any(String), attempts: 1 });
      const returnId = first.body.payerReturn?.id ?? "";
      expect(returnId).toMatch(/^[A-Za-z0-9]{26,35}$/);
      expect(devolucoesOf(e2e)).toEqual([expect.objectContaining({ id: returnId, valor: "12.34" })]);

      const whileProcessing = await returnIt(e2e);
      expectStatus(whileProcessing, 400);
      expect(whileProcessing.body.code).toBe("REQUEST_ERROR");

      bank.completeRefund(e2e, returnId);
      await reconcile();
      expect((await listed(e2e))?.payerReturn).toMatchObject({ status: "COMPLETED", id: returnId, attempts: 1 });
      expect((await listed(e2e))?.payerReturn?.returnedAt).toEqual(expect.any(String));

      const again = await returnIt(e2e);
      expectStatus(again, 400);
      expect(again.body.code).toBe("REQUEST_ERROR");
      expect(devolucoesOf(e2e)).toHaveLength(1);
      const audit = await server.store.read.bankConnectionChanges.listRecent(20);
      expect(audit.filter((c) => c.action === "unmatched_receipt.return_requested")).toContainEqual(
        expect.objectContaining({ changes: expect.objectContaining({ endToEndId: { from: null, to: e2e } }) }),
      );
    });

    test("when the bank refuses the return, then it is FAILED with the bank's reason, and the next return asks again with a new id and completes", async () => {
      const e2e = await unmatched(900);
      const first = await returnIt(e2e);
      expectStatus(first, 202);
      const firstId = first.body.payerReturn?.id ?? "";
      bank.failRefund(e2e, firstId, "Conta do pagador encerrada");
      await reconcile();
      expect((await listed(e2e))?.payerReturn).toMatchObject({
        status: "FAILED",
        attempts: 1,
        failureReason: expect.stringContaining("Conta do pagador encerrada"),
      });

      const retry = await returnIt(e2e);
      expectStatus(retry, 202);
      expect(retry.body.payerReturn).toEqual({ status: "PENDING", id: expect.any(String), attempts: 2 });
      const secondId = retry.body.payerReturn?.id ?? "";
      expect(secondId).not.toBe(firstId);
      bank.completeRefund(e2e, secondId);
      // Read back first: the operator's next request finds the bank's answer itself.
      const readBack = await returnIt(e2e);
      expectStatus(readBack, 200);
      expect(readBack.body.payerReturn).toMatchObject({ status: "COMPLETED", id: secondId, attempts: 2 });
      expect(devolucoesOf(e2e).map((d) => [d.id, d.valor, d.status])).toEqual([
        [firstId, "9.00", "NAO_REALIZADO"],
        [secondId, "9.00", "DEVOLVIDO"],
      ]);
    });

    test("when the operator returns one by the CLI, then it prints the return in Portuguese, and an unknown end-to-end id answers 404", async () => {
      const e2e = await unmatched(500);
      const run = await runAdmin(["--json", "bank", "return", e2e], env());
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ endToEndId: e2e, payerReturn: { status: "PENDING" } });
      const human = await runAdmin(["bank", "unmatched"], env());
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain("PENDING");

      const unknown = await runAdmin(["bank", "return", "E00000000202001010000000000000000"], env());
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain("Nenhum recebimento não identificado");
      expect((await returnIt("E00000000202001010000000000000000")).status).toBe(404);
      expect(bank.requests().filter((r) => !r.requestValid)).toEqual([]);
    });
  });
}
