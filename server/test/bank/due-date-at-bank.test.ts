import { afterAll, beforeAll, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import { startWebhookListener, type WebhookListener } from "../../src/bank/listener.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { addDays, isBusinessDay } from "../../src/domain/payments/index.js";
import { bodyOf, byId, chargePayer, expectStatus, publicApi } from "../harness.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";
import { acceptanceTable, brasiliaDate, nextOn } from "../support/due-date.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";

// Issue 38's acceptance in production (record 0053, "Production"): a production key's charge with
// a due date is registered at the fake bank with PUT /cobv/{txid} (its terms in the standard's
// `valor`), paid there on a date for what the BANK computes it owes that day (fake-bank/src/
// cobv-amount.ts, its own implementation of the rules), credited from the bank's callback (read
// back) or the reconciler with the received Pix's `componentesValor` as the paid breakdown, once by
// end-to-end id. The amounts are the hand-computed table of the test-mode tests
// (server/test/support/due-date.ts). The service's clock is moved to the payer's
// date, as a real payment would find it. Every request the service sent, and every callback the
// bank sent, is valid against the document.

type Body = components["schemas"]["CreateDueDateChargeRequest"];
type Transaction = components["schemas"]["Transaction"];

/** An instant on `date` in Brasília after the bank's noon `horario` (so our clock is past the Pix). */
const afternoonOf = (date: string) => `${date}T18:00:00.000Z`;

function dueDateAtBankSuite(store: StoreUnderTest) {
  let bank: FakeBank;
  let client: BankClient | null = null;
  let listener: WebhookListener;
  /** What each callback handed to the service: awaited before reading the charge. */
  const handed: Promise<unknown>[] = [];
  const clock = new ManualClock(new Date());
  const access: BankAccess = { current: () => Promise.resolve(client), waitMs: 3_000 };
  const server = serverOn(store, { bank: access, clock });

  beforeAll(async () => {
    const listenerCa = listenerCertificateAuthority();
    const serverCertificate = listenerCa.issueServer(["127.0.0.1"]);
    ({ bank, client } = await startBankWithClient(
      { webhookCa: listenerCa.certPem, tokenTtlSeconds: 3600 },
      { timeoutMs: 5_000 },
    ));
    listener = await startWebhookListener({
      port: 0,
      host: "127.0.0.1",
      serverCertificate: { cert: serverCertificate.certPem, key: serverCertificate.keyPem },
      bank: { ca: bank.caPem, dialect: "standard", path: "/banco" },
      onReceived: (ids) => {
        const work = server.domain.bankReceipts.confirmReceived(ids);
        handed.push(work);
        return work.then(() => undefined);
      },
    });
    await client.registerWebhook(`https://127.0.0.1:${listener.port}/banco`);
  });
  afterAll(async () => {
    await listener?.close();
    await closeBankWithClient({ bank, client });
  });

  const today = () => brasiliaDate(new Date());
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const liveKey = async () => (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
  const txidOf = (id: string) => `svc${id.replace("_", "")}`;
  const cobvOf = (id: string) => bank.dueDates.cobvs.get(`${bank.customer.clientId}\u0000${txidOf(id)}`);
  const read = (key: string, id: string) => bodyOf(api(key).GET("/api/v1/transactions/{id}", byId(id)), 200);
  /** Every callback delivered and handed to the service, and what it handed done. */
  const callbacksDone = async () => {
    await bank.settled();
    await Promise.all(handed.splice(0));
  };
  const paidEvents = async (key: string, id: string) => {
    const events = await bodyOf(api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } }), 200);
    return events.data.filter((e) => e.type === "transaction.paid" && (e.data.object as Transaction).id === id);
  };
  const breakdown = (t: Transaction) => {
    const due = t.dueDateCharge?.amountDue;
    if (!due) throw new Error(`no amountDue on ${t.id} (${t.status})`);
    const { originalCents, rebateCents, discountCents, fineCents, interestCents, finalCents } = due;
    return { originalCents, rebateCents, discountCents, fineCents, interestCents, finalCents };
  };
  /** The acceptance's terms: R$ 500,00, 2 % fine, 1 % a month, R$ 10,00 off until the Wednesday before `dueDate`. */
  const acceptanceBody = (dueDate: string): Body => ({
    amountCents: 50000,
    dueDate,
    fine: { mode: "PERCENTAGE", rateBps: 200 },
    interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
    discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: addDays(dueDate, -2), amountCents: 1000 }] },
    description: "Mensalidade - Escola Exemplo",
    customer: { ...chargePayer },
  });
  /** Next Friday (a week ahead at least), a business day, with its Tuesday and Wednesday business days too. */
  const nextFriday = () =>
    nextOn(
      addDays(today(), 4),
      5,
      (d) => isBusinessDay(d) && isBusinessDay(addDays(d, -2)) && isBusinessDay(addDays(d, -3)),
    );
  const create = async (key: string, body: Body) => {
    clock.set(new Date());
    const created = await bodyOf(api(key).POST("/api/v1/charges/due-date", { body }), 201);
    expect(created.status).toBe("WAITING_PAYMENT");
    return created;
  };
  /** The payer pays the charge's code at the bank on `date`; our clock is then on that date. */
  const payAtBank = async (charge: Transaction, date: string) => {
    clock.set(afternoonOf(date));
    return bank.pay(charge.pix.copyPaste, { date });
  };
  const expectAllValid = () => {
    expect(bank.requests().filter((r) => !r.requestValid || r.responseValid === false)).toEqual([]);
    expect(bank.callbacks().filter((c) => !c.bodyValid)).toEqual([]);
  };

  test("when a production key creates the acceptance's charge, then it is registered with PUT /cobv in the standard's terms and waits for payment with the bank's code", async () => {
    const key = await liveKey();
    const friday = nextFriday();
    const created = await create(key, acceptanceBody(friday));

    const cobv = cobvOf(created.id);
    expect(cobv?.status).toBe("ATIVA");
    expect(created.pix.copyPaste).toBe(cobv?.pixCopiaECola);
    expect(created.pix.copyPaste).toContain("/qr/v2/cobv/");
    expect(cobv?.valor).toEqual({
      original: "500.00",
      multa: { modalidade: 2, valorPerc: "2.00" },
      juros: { modalidade: 3, valorPerc: "1.00" },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(friday, -2), valorPerc: "10.00" }] },
    });
    expect(cobv?.terms).toMatchObject({ dataDeVencimento: friday, validadeAposVencimento: 30 });
    expect(cobv?.devedor).toMatchObject({ cpf: chargePayer.document, nome: chargePayer.name });
    // Today (before the Wednesday) the discount applies, here and at the bank alike.
    expect(breakdown(created)).toEqual(acceptanceTable.onTuesday);
    expect(bank.dueDates.owed(cobv as NonNullable<typeof cobv>, today()).amount.total).toBe(49000);
    const puts = bank.requests().filter((r) => r.method === "PUT" && r.path.endsWith(`/cobv/${txidOf(created.id)}`));
    expect(puts.map((r) => r.status)).toEqual([201]);
    expectAllValid();
  });

  test("when the payer pays on the Tuesday before, then the bank asks 490,00 and the charge is PAID with the discount, the bank's componentesValor kept", async () => {
    const key = await liveKey();
    const friday = nextFriday();
    const created = await create(key, acceptanceBody(friday));

    const pix = await payAtBank(created, addDays(friday, -3));
    await callbacksDone();
    const paid = await read(key, created.id);

    expect(pix.valor).toBe("490.00");
    expect(pix.componentesValor).toEqual({ original: { valor: "500.00" }, desconto: { valor: "10.00" } });
    expect(paid.status).toBe("PAID");
    expect(paid.amountCents).toBe(49000);
    expect(breakdown(paid)).toEqual(acceptanceTable.onTuesday);
    expect(paid.dueDateCharge?.amountDue?.paymentDate).toBe(addDays(friday, -3));
    const events = await paidEvents(key, created.id);
    expect(events).toHaveLength(1);
    expect(breakdown(events[0]?.data.object as Transaction)).toEqual(acceptanceTable.onTuesday);
    expectAllValid();
  });

  test("when the payer pays 10 days late and the callback arrives twice, then the bank asks 511,67 (fine and interest) and it is credited once", async () => {
    const key = await liveKey();
    const friday = nextFriday();
    const created = await create(key, acceptanceBody(friday));

    bank.faultCallbacks({ kind: "duplicate", count: 1 });
    const pix = await payAtBank(created, addDays(friday, 10));
    await callbacksDone();
    const paid = await read(key, created.id);
    const balance = await bodyOf(api(key).GET("/api/v1/balance"), 200);

    expect(pix.valor).toBe("511.67");
    expect(pix.componentesValor).toEqual({
      original: { valor: "500.00" },
      multa: { valor: "10.00" },
      juros: { valor: "1.67" },
    });
    expect(bank.callbacks().filter((c) => c.endToEndIds.includes(pix.endToEndId)).length).toBeGreaterThanOrEqual(2);
    expect(paid.status).toBe("PAID");
    expect(paid.amountCents).toBe(51167);
    expect(breakdown(paid)).toEqual(acceptanceTable.tenDaysLate);
    expect(await paidEvents(key, created.id)).toHaveLength(1);
    expect(balance.pendingCents + balance.availableCents).toBe(paid.amountCents - paid.feeCents);
    expectAllValid();
  });

  test("when the due date is a Sunday and the payer pays on the Monday after, then no fine nor interest is asked", async () => {
    const key = await liveKey();
    const sunday = nextOn(addDays(today(), 2), 0, (d) => isBusinessDay(addDays(d, 1)));
    const created = await create(key, { ...acceptanceBody(sunday), discount: undefined });

    const pix = await payAtBank(created, addDays(sunday, 1));
    await callbacksDone();
    const paid = await read(key, created.id);

    expect(created.dueDateCharge?.adjustedDueDate).toBe(addDays(sunday, 1));
    expect(pix.valor).toBe("500.00");
    expect(paid.status).toBe("PAID");
    expect(breakdown(paid)).toEqual({
      ...acceptanceTable.tenDaysLate,
      fineCents: 0,
      interestCents: 0,
      finalCents: 50000,
    });
    expectAllValid();
  });

  test("when the callback is lost, then the reconciler credits the Pix once with the bank's breakdown", async () => {
    const key = await liveKey();
    const friday = nextFriday();
    const created = await create(key, acceptanceBody(friday));

    bank.faultCallbacks({ kind: "drop", count: 1 });
    const pix = await payAtBank(created, addDays(friday, 10));
    await callbacksDone();
    expect((await read(key, created.id)).status).toBe("WAITING_PAYMENT");
    const window = {
      from: new Date(Date.parse(pix.horario) - 60_000).toISOString(),
      to: new Date(Date.parse(pix.horario) + 60_000).toISOString(),
    };
    const first = await server.domain.bankReconcile.reconcile(window);
    const again = await server.domain.bankReconcile.reconcile(window);
    const paid = await read(key, created.id);

    expect(first?.counts.credited).toBe(1);
    expect(again?.counts.credited).toBe(0);
    expect(paid.status).toBe("PAID");
    expect(breakdown(paid)).toEqual(acceptanceTable.tenDaysLate);
    expect(await paidEvents(key, created.id)).toHaveLength(1);
  });

  test("when a waiting charge is cancelled, then its cobv is removed at the bank and cannot be paid", async () => {
    const key = await liveKey();
    const created = await create(key, acceptanceBody(nextFriday()));

    const cancelled = await bodyOf(api(key).POST("/api/v1/transactions/{id}/cancel", byId(created.id)), 200);
    await server.domain.bankWork.runDue();

    expect(cancelled.status).toBe("CANCELLED");
    expect(cobvOf(created.id)?.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    expect(() => bank.pay(created.pix.copyPaste)).toThrow(/REMOVIDA/);
    const patches = bank
      .requests()
      .filter((r) => r.method === "PATCH" && r.path.endsWith(`/cobv/${txidOf(created.id)}`));
    expect(patches.map((r) => r.status)).toEqual([200]);
    expectAllValid();
  });

  test("when the discount is per calendar day paid early, then the bank takes it (the overlay's desconto correction) and asks the same amount as ours", async () => {
    const key = await liveKey();
    const friday = nextFriday();
    const body: Body = { ...acceptanceBody(friday), discount: { mode: "AMOUNT_PER_CALENDAR_DAY", amountCents: 50 } };
    const created = await create(key, body);

    const paidOn = addDays(friday, -3);
    const pix = await payAtBank(created, paidOn);
    await callbacksDone();
    const paid = await read(key, created.id);

    expect(cobvOf(created.id)?.valor).toMatchObject({ desconto: { modalidade: 3, valorPerc: "0.50" } });
    // Three calendar days early at R$ 0,50 a day.
    expect(pix.valor).toBe("498.50");
    expect(paid.status).toBe("PAID");
    expect(breakdown(paid)).toEqual({ ...acceptanceTable.onTuesday, discountCents: 150, finalCents: 49850 });
    expect(paid.dueDateCharge?.amountDue?.discountDays).toBe(3);
    expectAllValid();
  });

  test("when the last payable day ends unpaid, then the charge is EXPIRED and its cobv removed at the bank", async () => {
    const key = await liveKey();
    const created = await create(key, { ...acceptanceBody(nextFriday()), daysPayableAfterDue: 0 });

    clock.set(new Date(Date.parse(created.expiresAt) + 1_000));
    await server.domain.bankWork.runDue();
    const expired = await read(key, created.id);

    expect(expired.status).toBe("EXPIRED");
    expect(cobvOf(created.id)?.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    expectAllValid();
  });

  test("when the bank is down, then the create answers 503 with Retry-After and keeps nothing; the same idempotency-key then creates it", async () => {
    const key = await liveKey();
    const body = acceptanceBody(nextFriday());
    const keyed = publicApi(server.baseUrl, { key, idempotencyKey: "mensalidade-banco-fora" });

    bank.faultCalls({ kind: "status", status: 503, count: 1, route: "^PUT /cobv/" });
    clock.set(new Date());
    const refused = await keyed.POST("/api/v1/charges/due-date", { body });
    const list = await bodyOf(api(key).GET("/api/v1/transactions"), 200);
    const retried = await keyed.POST("/api/v1/charges/due-date", { body });

    expectStatus(refused, 503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(list.data).toEqual([]);
    expectStatus(retried, 201);
    expect(retried.body.status).toBe("WAITING_PAYMENT");
    expect(cobvOf(retried.body.id)?.status).toBe("ATIVA");
  });
}

for (const store of eachStore("bank_due_date")) {
  store.describe(`charges with a due date at the bank on the ${store.name} store`, () => dueDateAtBankSuite(store));
}
