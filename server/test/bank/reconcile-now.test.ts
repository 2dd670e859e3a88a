import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { PixBankDouble } from "../support/pix-bank-double.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The operator's reconciliation, now (issue 35 §3): `POST /admin/v1/bank/reconciliations` and
// `admin bank reconcile [--since <minutes>]`, on both stores, with the bank's test double (its
// rules: windows, errors, exactly once) and with the fake bank through the real adapter (a
// callback that never arrived, credited by the command).

interface ReconciliationPrinted {
  from: string;
  to: string;
  read: number;
  credited: number;
  known: number;
  unmatched: number;
}

function doubleSuite(store: StoreUnderTest) {
  const bank = new PixBankDouble();
  const access = bank.access(300);
  const server = serverOn(store, { bank: access });
  const operator = () => operatorApi(server.baseUrl, { token: testAdminToken });
  const cli = (...args: string[]) =>
    runAdmin(["--json", "bank", "reconcile", ...args], { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken });
  const now = () => server.clock.now().toISOString();
  const txidOf = (id: string) => `svc${id.replace("_", "")}`;

  const liveKey = async () => (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
  /** A production charge paid at the bank whose callback never came. */
  const paidWithoutCallback = async (key: string, amountCents = 4500) => {
    const res = await publicApi(server.baseUrl, { key }).POST("/api/v1/charges/pix", {
      body: chargeBody({ amountCents }),
    });
    expectStatus(res, 201);
    expect(res.body.status).toBe("WAITING_PAYMENT");
    bank.pay({ txid: txidOf(res.body.id), amountCents, paidAt: now() });
    return res.body;
  };
  const status = async (key: string, id: string) => {
    const res = await publicApi(server.baseUrl, { key }).GET("/api/v1/transactions/{id}", byId(id));
    expectStatus(res, 200);
    return res.body.status;
  };
  const reconcile = (body: { from?: string; to?: string; lastSeconds?: number } = {}) =>
    operator().POST("/admin/v1/bank/reconciliations", { body });

  test("when a callback was dropped, then the operator's run over the scheduled window credits it, and a second run credits nothing", async () => {
    const key = await liveKey();
    const charge = await paidWithoutCallback(key);
    server.clock.advance(1);
    expect(await status(key, charge.id)).toBe("WAITING_PAYMENT");

    const first = await reconcile();
    expectStatus(first, 200);
    const to = server.clock.now();
    expect(first.body.to).toBe(to.toISOString());
    expect(first.body.from).toBe(new Date(to.getTime() - 3_600_000).toISOString());
    expect(first.body.credited).toBe(1);
    expect(first.body.read).toBe(first.body.credited + first.body.known + first.body.unmatched + first.body.foreign);
    expect(await status(key, charge.id)).toBe("PAID");

    const again = await reconcile({ from: first.body.from, to: first.body.to });
    expectStatus(again, 200);
    expect(again.body).toMatchObject({ credited: 0, unmatched: 0, read: first.body.read });
    expect(again.body.known).toBe(first.body.read - first.body.foreign);
    expect(await status(key, charge.id)).toBe("PAID");
  });

  test("when the operator runs it with --since, then the CLI credits the dropped callback over the last minutes, and a second run credits nothing", async () => {
    const key = await liveKey();
    server.clock.advance(3_600);
    const charge = await paidWithoutCallback(key, 7_700);
    server.clock.advance(1);

    const first = await cli("--since", "5");
    expect(first.code, first.stderr).toBe(0);
    const printed = JSON.parse(first.stdout) as ReconciliationPrinted;
    expect(printed).toMatchObject({ read: 1, credited: 1, known: 0, unmatched: 0, to: now() });
    expect(printed.from).toBe(new Date(server.clock.now().getTime() - 300_000).toISOString());
    expect(await status(key, charge.id)).toBe("PAID");

    const second = await cli("--since", "5");
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ read: 1, credited: 0, known: 1 });

    const wrong = await cli("--since", "0");
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("--since");
  });

  test("when the operator's run and the scheduled one overlap, then each Pix is credited once", async () => {
    const key = await liveKey();
    server.clock.advance(3_600);
    const from = now();
    const charges = [await paidWithoutCallback(key, 1_000), await paidWithoutCallback(key, 2_000)];
    const to = server.clock.advance(1).toISOString();
    const [byOperator, alsoByOperator, scheduled] = await Promise.all([
      reconcile({ from, to }),
      reconcile({ lastSeconds: 60 }),
      server.domain.bankReconcile.reconcile({ from, to }),
    ]);
    expectStatus(byOperator, 200);
    expectStatus(alsoByOperator, 200);
    expect(byOperator.body.credited + alsoByOperator.body.credited + (scheduled?.counts.credited ?? 0)).toBe(2);
    for (const charge of charges) expect(await status(key, charge.id)).toBe("PAID");
  });

  test("when a Pix pays no charge, then the run holds it as an unmatched receipt and counts it", async () => {
    server.clock.advance(3_600);
    const from = now();
    bank.pay({ txid: null, amountCents: 1_234, paidAt: now() });
    const res = await reconcile({ from, to: server.clock.advance(1).toISOString() });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ read: 1, credited: 0, known: 0, unmatched: 1, foreign: 0 });
  });

  test("when the bank does not answer, then the run answers 503 with Retry-After and credits nothing, and the next run credits it", async () => {
    const key = await liveKey();
    server.clock.advance(3_600);
    const charge = await paidWithoutCallback(key);
    server.clock.advance(1);
    bank.reading = { kind: "down" };
    try {
      const down = await reconcile({ lastSeconds: 60 });
      expectStatus(down, 503);
      expect(down.body.code).toBe("SERVICE_UNAVAILABLE");
      expect(down.headers.get("retry-after")).toBe("30");
      expect(await status(key, charge.id)).toBe("WAITING_PAYMENT");

      const cliDown = await cli("--since", "1");
      expect(cliDown.code).not.toBe(0);
      expect(cliDown.stderr).toContain("503");

      bank.reading = { kind: "refuse", detail: "Janela de consulta inválida" };
      const refused = await reconcile({ lastSeconds: 60 });
      expectStatus(refused, 503);
      expect(refused.headers.get("retry-after")).toBe("30");
    } finally {
      bank.reading = { kind: "ok" };
    }
    const back = await reconcile({ lastSeconds: 60 });
    expectStatus(back, 200);
    expect(back.body.credited).toBe(1);
    expect(await status(key, charge.id)).toBe("PAID");
  });

  test("when the window is out of bounds, then 400 VALIDATION_ERROR names the field", async () => {
    const at = server.clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: [{ from?: string; to?: string; lastSeconds?: number }, string][] = [
      [{ from: iso(at - 60_000), lastSeconds: 60 }, "lastSeconds"],
      [{ to: iso(at + 60_000) }, "to"],
      [{ from: iso(at - 1_000), to: iso(at - 1_000) }, "from"],
      [{ from: iso(at - 8 * 86_400_000) }, "from"],
      [{ lastSeconds: 604_801 }, "lastSeconds"],
      [{ lastSeconds: 0 }, "lastSeconds"],
    ];
    for (const [body, path] of cases) {
      const res = await reconcile(body);
      expectStatus(res, 400);
      expect(res.body.code, JSON.stringify(body)).toBe("VALIDATION_ERROR");
      expect(res.body.errors?.map((e) => e.path)).toContain(path);
    }
    const week = await reconcile({ from: iso(at - 7 * 86_400_000) });
    expectStatus(week, 200);
  });

  test("when no bank is connected, then the run answers 404 NOT_FOUND saying how to connect one, by the API and the CLI", async () => {
    access.connected = false;
    try {
      const res = await reconcile();
      expectStatus(res, 404);
      expect(res.body.code).toBe("NOT_FOUND");
      expect(res.body.message).toContain("Nenhuma conexão bancária configurada");
      const printed = await cli();
      expect(printed.code).not.toBe(0);
      expect(printed.stderr).toContain("Nenhuma conexão bancária configurada");
    } finally {
      access.connected = true;
    }
  });
}

function fakeBankSuite(store: StoreUnderTest) {
  let bank: FakeBank;
  let client: BankClient | null = null;
  const access: BankAccess = { current: () => Promise.resolve(client), waitMs: 2_000 };
  // The fake bank stamps each Pix with the real time: the service's clock starts at it.
  const server = serverOn(store, { bank: access, clock: new ManualClock(new Date()) });

  beforeAll(async () => {
    // No webhook registered: every callback of a payment is lost.
    ({ bank, client } = await startBankWithClient({ tokenTtlSeconds: 3600 }, { timeoutMs: 2_000 }));
  });
  afterAll(() => closeBankWithClient({ bank, client }));

  test("when a payment's callback never reached the service, then the command credits it through the real adapter, and a second run credits nothing", async () => {
    const key = (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
    const api = publicApi(server.baseUrl, { key });
    const pay = async (amountCents: number) => {
      const created = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
      expectStatus(created, 201);
      expect(created.body.status).toBe("WAITING_PAYMENT");
      bank.pay(created.body.pix.copyPaste);
      return created.body.id;
    };
    const status = async (id: string) => {
      const res = await api.GET("/api/v1/transactions/{id}", byId(id));
      expectStatus(res, 200);
      return res.body.status;
    };
    const first = await pay(3_300);
    await bank.settled();
    server.clock.set(new Date(Date.now() + 1_000));
    expect(await status(first)).toBe("WAITING_PAYMENT");

    const run = await operatorApi(server.baseUrl, { token: testAdminToken }).POST("/admin/v1/bank/reconciliations", {
      body: {},
    });
    expectStatus(run, 200);
    expect(run.body).toMatchObject({ read: 1, credited: 1, known: 0, unmatched: 0 });
    expect(await status(first)).toBe("PAID");

    const second = await pay(5_500);
    await bank.settled();
    server.clock.set(new Date(Date.now() + 1_000));
    const env = { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken };
    const byCli = await runAdmin(["--json", "bank", "reconcile", "--since", "10"], env);
    expect(byCli.code, byCli.stderr).toBe(0);
    expect(JSON.parse(byCli.stdout)).toMatchObject({ read: 2, credited: 1, known: 1 });
    expect(await status(second)).toBe("PAID");

    const again = await runAdmin(["--json", "bank", "reconcile"], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ read: 2, credited: 0, known: 2 });
    expect(bank.requests().filter((r) => !r.requestValid)).toEqual([]);
  });
}

for (const store of eachStore("bank_reconcile_now")) {
  store.describe(`the operator's reconciliation on the ${store.name} store`, () => {
    describe("with the bank's test double", () => doubleSuite(store));
    describe("with the fake bank", () => fakeBankSuite(store));
  });
}
