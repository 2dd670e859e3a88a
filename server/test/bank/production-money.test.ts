import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";
import { PixBankDouble } from "../support/pix-bank-double.js";
import { runAdmin } from "../support/admin-process.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import { brasiliaDate } from "../../src/domain/payments/index.js";

// Production money through the bank (issue 35), the domain's side, through the real HTTP stack on
// both stores, with a test double of the bank in `DomainDeps.bank`: charges registered at the
// bank (in time, slow, down, refused), received Pix credited exactly once, unmatched receipts,
// the reconciler, expiry and cancellation removed at the bank, refunds and MED.

type Transaction = components["schemas"]["Transaction"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function bankSuite(store: StoreUnderTest) {
  const bank = new PixBankDouble();
  const access = bank.access(300);
  const server = serverOn(store, { bank: access });

  const liveKey = async () => {
    const account = await server.newAccount({ releasePeriodDays: 0 });
    return account.liveKey as string;
  };
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const create = async (key: string, amountCents = 8990, idempotencyKey?: string) => {
    const res = await api(key).POST("/api/v1/charges/pix", {
      body: chargeBody({ amountCents }),
      ...(idempotencyKey ? { params: { header: { "idempotency-key": idempotencyKey } } } : {}),
    });
    expectStatus(res, 201);
    return res.body;
  };
  const read = async (key: string, id: string): Promise<Transaction> => {
    const res = await api(key).GET("/api/v1/transactions/{id}", byId(id));
    expectStatus(res, 200);
    return res.body;
  };
  const balance = async (key: string) => {
    const res = await api(key).GET("/api/v1/balance");
    expectStatus(res, 200);
    return res.body;
  };
  const events = async (key: string) => {
    const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(res, 200);
    return res.body.data;
  };
  const refund = async (key: string, id: string, amountCents?: number) => {
    const res = await api(key).POST("/api/v1/transactions/{id}/refunds", {
      ...byId(id),
      body: amountCents === undefined ? {} : { amountCents },
    });
    expectStatus(res, 201);
    return res.body;
  };
  const txidOf = (id: string) => `svc${id.replace("_", "")}`;
  const now = () => server.clock.now().toISOString();
  const confirm = (ids: string[]) => server.domain.bankReceipts.confirmReceived(ids);
  /** A production charge registered at the bank and paid by a payer there (not yet confirmed). */
  const paidAtBank = async (key: string, amountCents = 8990) => {
    const charge = await create(key, amountCents);
    expect(charge.status).toBe("WAITING_PAYMENT");
    return { charge, pix: bank.pay({ txid: txidOf(charge.id), amountCents, paidAt: now() }) };
  };
  /** Runs the bank tasks due after `seconds` more. */
  const runTasks = async (seconds = 1) => {
    server.clock.advance(seconds);
    return server.domain.bankWork.runDue();
  };

  describe("charges at the bank", () => {
    test("when the bank answers in time, then the production charge waits for payment with the bank's code and a txid of 26-35 letters and digits", async () => {
      const key = await liveKey();
      const charge = await create(key);
      const atBank = bank.chargeOf(charge.id);
      expect(charge.status).toBe("WAITING_PAYMENT");
      expect(charge.pix.copyPaste).toBe(atBank?.copyPaste);
      expect(charge.pix.qrCode).toBe(atBank?.copyPaste);
      expect(atBank?.txid).toMatch(/^[A-Za-z0-9]{26,35}$/);
      expect(atBank?.request).toMatchObject({ amountCents: 8990, payer: { document: "52998224725" } });
      expect(atBank?.request.expiresInSeconds).toBe(
        (Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000,
      );
    });

    test("when the key is a test key, then the charge never reaches the bank", async () => {
      const account = await server.newAccount();
      const charge = await create(account.testKey);
      expect(charge.status).toBe("WAITING_PAYMENT");
      expect(bank.chargeOf(charge.id)).toBeUndefined();
    });

    test("when a test charge's description is sandbox:falha, then it is created FAILED with transaction.failed, as a bank's refusal", async () => {
      const account = await server.newAccount();
      const res = await api(account.testKey).POST("/api/v1/charges/pix", {
        body: chargeBody({ description: "sandbox:falha" }),
      });
      expectStatus(res, 201);
      expect(res.body).toMatchObject({ status: "FAILED", pix: { copyPaste: "" } });
      expect(res.body.failureReason).toContain("sandbox:falha");
      const failed = (await events(account.testKey)).filter((e) => e.type === "transaction.failed");
      expect(failed.map((e) => (e.data.object as Transaction).id)).toEqual([res.body.id]);
    });

    test("when the bank is slow, then the create answers PENDING within its wait and the charge is finished in the background", async () => {
      const key = await liveKey();
      bank.registering = { kind: "ok", delayMs: 900 };
      try {
        const started = Date.now();
        const charge = await create(key);
        expect(Date.now() - started).toBeLessThan(850);
        expect(charge.status).toBe("PENDING");
        expect(charge.pix.copyPaste).toBe("");
        await sleep(1_200);
        const finished = await read(key, charge.id);
        expect(finished.status).toBe("WAITING_PAYMENT");
        expect(finished.pix.copyPaste).toBe(bank.chargeOf(charge.id)?.copyPaste);
      } finally {
        bank.registering = { kind: "ok" };
      }
    });

    test("when the bank is down, then the create answers PENDING (no 5xx) and the job registers it once the bank is back, with the same txid", async () => {
      const key = await liveKey();
      bank.registering = { kind: "down" };
      const charge = await create(key, 8990, "pedido-banco-fora");
      expect(charge.status).toBe("PENDING");
      const replayWhileDown = await create(key, 8990, "pedido-banco-fora");
      expect(replayWhileDown.id).toBe(charge.id);
      expect(replayWhileDown.status).toBe("PENDING");
      bank.registering = { kind: "ok" };
      await runTasks();
      const finished = await read(key, charge.id);
      expect(finished.status).toBe("WAITING_PAYMENT");
      expect(bank.registerCalls.filter((t) => t === txidOf(charge.id)).length).toBeGreaterThanOrEqual(2);
      expect(new Set(bank.registerCalls.filter((t) => t.endsWith(charge.id.slice(4))))).toEqual(
        new Set([txidOf(charge.id)]),
      );
      const replay = await create(key, 8990, "pedido-banco-fora");
      expect(replay).toMatchObject({ id: charge.id, status: "WAITING_PAYMENT" });
    });

    test("when the bank refuses the charge, then it ends FAILED with the bank's reason and transaction.failed", async () => {
      const key = await liveKey();
      bank.registering = { kind: "refuse", detail: "Chave Pix não pertence ao recebedor." };
      try {
        const charge = await create(key);
        expect(charge.status).toBe("FAILED");
        expect(charge.failureReason).toContain("Chave Pix não pertence ao recebedor.");
        const failed = (await events(key)).filter((e) => e.type === "transaction.failed");
        expect(failed.map((e) => (e.data.object as Transaction).id)).toEqual([charge.id]);
      } finally {
        bank.registering = { kind: "ok" };
      }
    });

    test("when the bank stays down past the charge's expiry, then the job fails it and removes it at the bank", async () => {
      const key = await liveKey();
      bank.registering = { kind: "down" };
      const charge = await create(key);
      bank.registering = { kind: "ok" };
      await runTasks(2 * 86_400);
      expect((await read(key, charge.id)).status).toBe("FAILED");
      await runTasks();
      expect(bank.removed).toContain(txidOf(charge.id));
    });

    test("when a charge expires or is cancelled, then the job removes its cob at the bank; a paid one is left", async () => {
      const key = await liveKey();
      const expiring = await create(key);
      const cancelled = await create(key);
      const { charge: paid, pix } = await paidAtBank(key);
      expect(await confirm([pix.endToEndId])).toEqual(["credited"]);
      const res = await api(key).POST("/api/v1/transactions/{id}/cancel", byId(cancelled.id));
      expectStatus(res, 200);
      await runTasks();
      expect(bank.removed).toContain(txidOf(cancelled.id));
      expect(bank.removed).not.toContain(txidOf(expiring.id));
      await runTasks(2 * 86_400);
      expect(bank.removed).toContain(txidOf(expiring.id));
      expect(bank.removed).not.toContain(txidOf(paid.id));
    });

    test("when a journey 3 recurrence is created in production, then its immediate charge keeps the code that carries the recurrence and never reaches the bank", async () => {
      const key = await liveKey();
      const made = await api(key).POST("/api/v1/recurrences", {
        body: recurrenceBody({
          firstDate: dateAfter(brasiliaDate(server.clock.now()), 5),
          journey: "JOURNEY_3",
          initialPayment: { amountCents: 4990 },
        }),
      });
      expectStatus(made, 201);
      const charge = await read(key, made.body.initialTransactionId as string);
      expect(charge.status).toBe("WAITING_PAYMENT");
      expect(charge.pix.copyPaste).toBe(made.body.pix.copyPaste);
      expect(bank.chargeOf(charge.id)).toBeUndefined();
      await runTasks();
      expect(bank.registerCalls).not.toContain(txidOf(charge.id));
    });

    test("when no bank is connected, then a production charge carries the static code as before", async () => {
      const key = await liveKey();
      access.connected = false;
      try {
        const charge = await create(key);
        expect(charge.status).toBe("WAITING_PAYMENT");
        expect(charge.pix.copyPaste).toContain("br.gov.bcb.pix");
        expect(bank.chargeOf(charge.id)).toBeUndefined();
      } finally {
        access.connected = true;
      }
    });
  });

  describe("received Pix", () => {
    test("when the same Pix is confirmed many times at once, then it is credited exactly once", async () => {
      const key = await liveKey();
      const { charge, pix } = await paidAtBank(key);
      const outcomes = (
        await Promise.all([
          ...Array.from({ length: 8 }, () => confirm([pix.endToEndId])),
          server.domain.bankReconcile.reconcile({ from: charge.createdAt, to: server.clock.advance(1).toISOString() }),
        ])
      ).flatMap((o) => (Array.isArray(o) ? o : []));
      expect(outcomes.filter((o) => o === "credited")).toHaveLength(1);
      expect(outcomes.filter((o) => o !== "credited").every((o) => o === "known")).toBe(true);
      const paid = await read(key, charge.id);
      expect(paid.status).toBe("PAID");
      expect((await balance(key)).availableCents).toBe(charge.netAmountCents);
      expect((await events(key)).filter((e) => e.type === "transaction.paid")).toHaveLength(1);
    });

    test("when what is paid matches no charge, then it is kept as an unmatched receipt the operator lists, and nothing is credited", async () => {
      const key = await liveKey();
      const waiting = await create(key, 5000);
      const expired = await create(key, 5000);
      const noTxid = bank.pay({ txid: null, amountCents: 1234, paidAt: now() });
      const unknownTxid = bank.pay({ txid: "svctxn00000000000000000000", amountCents: 1234, paidAt: now() });
      const foreignTxid = bank.pay({ txid: "outrobanco1234567890123456789", amountCents: 1234, paidAt: now() });
      const wrongAmount = bank.pay({ txid: txidOf(waiting.id), amountCents: 4999, paidAt: now() });
      server.clock.advance(2 * 86_400);
      const late = bank.pay({ txid: txidOf(expired.id), amountCents: 5000, paidAt: now() });
      const ids = [noTxid, unknownTxid, foreignTxid, wrongAmount, late].map((p) => p.endToEndId);
      expect(await confirm(ids)).toEqual(["unmatched", "unmatched", "unmatched", "unmatched", "unmatched"]);
      expect(await confirm(ids)).toEqual(["known", "known", "known", "known", "known"]);
      expect((await read(key, waiting.id)).status).toBe("EXPIRED");
      expect((await balance(key)).availableCents).toBe(0);
      const listed = await operatorApi(server.baseUrl, { token: testAdminToken }).GET(
        "/admin/v1/bank/unmatched-receipts",
        { params: { query: { limit: 100 } } },
      );
      expectStatus(listed, 200);
      const byE2e = new Map(listed.body.data.map((r) => [r.endToEndId, r]));
      expect(byE2e.get(noTxid.endToEndId)).toMatchObject({ txid: null, amountCents: 1234 });
      for (const id of ids) expect(byE2e.get(id)?.reason).toBeTruthy();
      expect(byE2e.get(wrongAmount.endToEndId)?.reason).toContain("diferente");
      expect(byE2e.get(late.endToEndId)?.reason).toContain("EXPIRED");
      const cli = await runAdmin(["--json", "bank", "unmatched", "--limit", "100"], {
        PIX_ADMIN_URL: server.baseUrl,
        ADMIN_TOKEN: testAdminToken,
      });
      expect(cli.code, cli.stderr).toBe(0);
      const printed = JSON.parse(cli.stdout) as { data: { endToEndId: string }[] };
      expect(printed.data.map((r) => r.endToEndId)).toEqual(listed.body.data.map((r) => r.endToEndId));
    });

    test("when a callback names a Pix to another key or one the bank does not know, then nothing is kept", async () => {
      const key = await liveKey();
      const charge = await create(key);
      const foreign = bank.pay({
        txid: txidOf(charge.id),
        amountCents: 8990,
        key: "outra@chave.example",
        paidAt: now(),
      });
      expect(await confirm([foreign.endToEndId, "E99999999202610041530abcdefghijk"])).toEqual(["foreign", "unknown"]);
      expect((await read(key, charge.id)).status).toBe("WAITING_PAYMENT");
      expect(await server.store.read.receivedPix.get(foreign.endToEndId)).toBeNull();
    });

    test("when the bank is down for a callback, then nothing is credited and the reconciler, run twice at once over overlapping windows, credits each Pix once", async () => {
      const key = await liveKey();
      const from = now();
      const paid = [await paidAtBank(key, 1000), await paidAtBank(key, 2000), await paidAtBank(key, 3000)];
      bank.reading = { kind: "down" };
      expect(await confirm([paid[0]!.pix.endToEndId])).toEqual(["unavailable"]);
      bank.reading = { kind: "ok" };
      const to = server.clock.advance(1).toISOString();
      const runs = await Promise.all([
        server.domain.bankReconcile.reconcile({ from, to }),
        server.domain.bankReconcile.reconcile({ from, to }),
      ]);
      const credited = runs.reduce((n, r) => n + (r?.counts.credited ?? 0), 0);
      expect(credited).toBe(3);
      for (const { charge } of paid) expect((await read(key, charge.id)).status).toBe("PAID");
      expect((await balance(key)).availableCents).toBe(paid.reduce((n, p) => n + p.charge.netAmountCents, 0));
    });
  });

  describe("refunds and MED at the bank", () => {
    test("when a Pix paid through the bank is refunded, then the devolução is asked with an id of ours and the refund completes with the bank's return id", async () => {
      const key = await liveKey();
      const { charge, pix } = await paidAtBank(key);
      await confirm([pix.endToEndId]);
      const made = await refund(key, charge.id, 1000);
      expect(made.status).toBe("COMPLETED");
      const asked = bank.refundRequests.find((r) => r.endToEndId === pix.endToEndId);
      expect(asked?.refundId).toMatch(/^[A-Za-z0-9]{1,35}$/);
      expect(asked?.amountCents).toBe(1000);
      expect(made.endToEndId).toBe(bank.received.get(pix.endToEndId)?.refunds[0]?.returnId);
    });

    test("when the bank refuses the devolução, then the refund fails and the amount returns to the balance", async () => {
      const key = await liveKey();
      const { charge, pix } = await paidAtBank(key);
      await confirm([pix.endToEndId]);
      bank.refundStatus = "NAO_REALIZADO";
      try {
        const made = await refund(key, charge.id, 5000);
        expect(made.status).toBe("FAILED");
        expect(made.failureReason).toBe("Conta do pagador encerrada");
        expect((await balance(key)).availableCents).toBe(charge.netAmountCents);
      } finally {
        bank.refundStatus = "DEVOLVIDO";
      }
    });

    test("when the bank is down for a refund, then it stays PENDING and the job reads it back before asking again, then completes it", async () => {
      const key = await liveKey();
      const { charge, pix } = await paidAtBank(key);
      await confirm([pix.endToEndId]);
      bank.refunding = { kind: "down" };
      const made = await refund(key, charge.id, 500);
      expect(made.status).toBe("PENDING");
      bank.refunding = { kind: "ok" };
      bank.refundStatus = "EM_PROCESSAMENTO";
      await runTasks();
      const asked = bank.refundRequests.filter((r) => r.endToEndId === pix.endToEndId);
      expect(asked).toHaveLength(2);
      expect(new Set(asked.map((r) => r.refundId)).size).toBe(1);
      bank.refundStatus = "DEVOLVIDO";
      const processing = bank.received.get(pix.endToEndId)?.refunds[0];
      bank.setRefund(pix.endToEndId, { ...processing!, status: "DEVOLVIDO" });
      await runTasks(600);
      expect(bank.refundRequests.filter((r) => r.endToEndId === pix.endToEndId)).toHaveLength(2);
      const res = await api(key).GET("/api/v1/refunds/{id}", byId(made.id));
      expectStatus(res, 200);
      expect(res.body.status).toBe("COMPLETED");
    });

    test("when the bank reports a MED devolução on a received Pix, then the charge's dispute opens, and closes LOST once returned, each once", async () => {
      const key = await liveKey();
      const { charge, pix } = await paidAtBank(key);
      await confirm([pix.endToEndId]);
      const med = {
        refundId: "MED0000000001",
        returnId: "D00000000202610041530MED00000001",
        amountCents: 3000,
        nature: "MED_FRAUDE" as const,
        status: "EM_PROCESSAMENTO" as const,
        reason: "Fraude",
      };
      bank.setRefund(pix.endToEndId, med);
      await confirm([pix.endToEndId]);
      await confirm([pix.endToEndId]);
      const opened = await read(key, charge.id);
      expect(opened.dispute).toMatchObject({ status: "OPEN", amountCents: 3000 });
      expect((await balance(key)).blockedCents).toBe(3000);
      bank.setRefund(pix.endToEndId, { ...med, status: "DEVOLVIDO" });
      await Promise.all([confirm([pix.endToEndId]), confirm([pix.endToEndId])]);
      expect((await read(key, charge.id)).dispute?.status).toBe("LOST");
      const types = (await events(key)).map((e) => e.type);
      expect(types.filter((t) => t === "dispute.opened")).toHaveLength(1);
      expect(types.filter((t) => t === "dispute.closed")).toHaveLength(1);
      expect((await balance(key)).blockedCents).toBe(0);
    });
  });
}

for (const store of eachStore("bank-money")) {
  store.describe(`production money through the bank on the ${store.name} store`, () => bankSuite(store));
}
