import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { parseBrCode } from "../../src/pix/brcode.js";
import { addDays, isBusinessDay } from "../../src/domain/payments/index.js";
import { bodyOf, byId, chargePayer, type ErrorBody, expectStatus, publicApi, rawCall } from "../harness.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";
import { acceptanceTable, brasiliaDate, nextOn } from "../support/due-date.js";

// Pix charges with a due date through the public API (issue 38; records 0052 and 0053), in test
// mode, on both stores: created at POST /api/v1/charges/due-date, read with the amount due today
// and its breakdown, paid by the sandbox on a given date, EXPIRED after the last payable day.
// The amounts are the acceptance, computed by hand below.

type Body = components["schemas"]["CreateDueDateChargeRequest"];
type Transaction = components["schemas"]["Transaction"];

function dueDateSuite(store: StoreUnderTest) {
  const server = serverOn(store);
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const today = () => brasiliaDate(server.clock.now());

  /** The acceptance's charge: due next Friday (a business day), R$ 10,00 off until the Wednesday before. */
  function acceptanceBody(): Body {
    const friday = nextOn(addDays(today(), 2), 5, (date) => isBusinessDay(date) && isBusinessDay(addDays(date, -2)));
    return {
      amountCents: 50000,
      dueDate: friday,
      fine: { mode: "PERCENTAGE", rateBps: 200 },
      interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
      discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: addDays(friday, -2), amountCents: 1000 }] },
      description: "Mensalidade - Escola Exemplo",
      customer: { ...chargePayer },
      metadata: { studentId: "117" },
    };
  }
  const create = (key: string, body: Body) => api(key).POST("/api/v1/charges/due-date", { body });
  const read = (key: string, id: string) => bodyOf(api(key).GET("/api/v1/transactions/{id}", byId(id)), 200);
  const payOn = (key: string, id: string, paymentDate?: string) =>
    api(key).POST("/api/v1/sandbox/transactions/{id}/pay", {
      ...byId(id),
      ...(paymentDate ? { body: { paymentDate } } : {}),
    });
  const breakdown = (t: Transaction) => {
    const due = t.dueDateCharge?.amountDue;
    if (!due) throw new Error(`no amountDue on ${t.id} (${t.status})`);
    const { originalCents, rebateCents, discountCents, fineCents, interestCents, finalCents } = due;
    return { originalCents, rebateCents, discountCents, fineCents, interestCents, finalCents };
  };

  describe("POST /api/v1/charges/due-date", () => {
    test("when a charge due next Friday is created, then it reads WAITING_PAYMENT with its terms, the amount due today and a Pix code of that amount", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();

      const created = await bodyOf(create(testKey, body), 201);
      const again = await read(testKey, created.id);

      expect(created.status).toBe("WAITING_PAYMENT");
      expect(again).toEqual(created);
      expect(created.dueDateCharge).toMatchObject({
        terms: {
          ...(body.discount && { discount: body.discount }),
          amountCents: 50000,
          dueDate: body.dueDate,
          daysPayableAfterDue: 30,
        },
        adjustedDueDate: body.dueDate,
      });
      // Today is before the Wednesday: the discount applies.
      expect(breakdown(created)).toEqual(acceptanceTable.onTuesday);
      expect(created.dueDateCharge?.amountDue).toMatchObject({
        paymentDate: today(),
        discountUntil: addDays(body.dueDate, -2),
      });
      expect(created.amountCents).toBe(49000);
      expect(created.netAmountCents).toBe(created.amountCents - created.feeCents);
      expect(parseBrCode(created.pix.copyPaste)).toMatchObject({ amountCents: 49000, crcValid: true });
    });

    test("when the same idempotency-key is sent twice, then the second answers the same charge and creates nothing more", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();
      const keyed = publicApi(server.baseUrl, { key: testKey, idempotencyKey: "mensalidade-117" });

      const first = await keyed.POST("/api/v1/charges/due-date", { body });
      const second = await keyed.POST("/api/v1/charges/due-date", { body });
      const list = await bodyOf(api(testKey).GET("/api/v1/transactions"), 200);

      expectStatus(first, 201);
      expectStatus(second, 201);
      expect(second.body.id).toBe(first.body.id);
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      expect(list.data.map((t) => t.id)).toEqual([first.body.id]);
    });

    test.each([
      {
        name: "a due date in the past",
        change: (b: Body, t: string) => ({ ...b, dueDate: addDays(t, -1) }),
        path: "dueDate",
        message: /não pode ser anterior a hoje/,
      },
      {
        name: "a discount date after the due date",
        change: (b: Body) => ({
          ...b,
          discount: {
            mode: "AMOUNT_UNTIL_DATES" as const,
            dates: [{ date: addDays(b.dueDate, 1), amountCents: 1000 }],
          },
        }),
        path: "discount.dates.0.date",
        message: /não pode ser posterior ao vencimento/,
      },
      {
        name: "a discount that reaches the amount",
        change: (b: Body) => ({
          ...b,
          discount: { mode: "AMOUNT_UNTIL_DATES" as const, dates: [{ date: b.dueDate, amountCents: 50000 }] },
        }),
        path: "discount.dates.0.amountCents",
        message: /alcança o valor da cobrança/,
      },
      {
        name: "a rebate that reaches the amount",
        change: (b: Body) => ({ ...b, rebate: { mode: "FIXED" as const, amountCents: 50000 } }),
        path: "rebate.amountCents",
        message: /o abatimento \(R\$\s500,00\) alcança o valor da cobrança/,
      },
      {
        name: "a fine given as an amount in the percentage mode",
        change: (b: Body) => ({ ...b, fine: { mode: "PERCENTAGE" as const, amountCents: 1000 } }),
        path: "fine.amountCents",
        message: /não se usa na modalidade PERCENTAGE/,
      },
    ])(
      "when $name is asked, then 400 VALIDATION_ERROR names the field in Portuguese and nothing is created",
      async ({ change, path, message }) => {
        const { testKey } = await server.newAccount();

        const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/charges/due-date", {
          key: testKey,
          body: change(acceptanceBody(), today()),
        });
        const list = await bodyOf(api(testKey).GET("/api/v1/transactions"), 200);

        expect(res.status).toBe(400);
        expect(res.body.code).toBe("VALIDATION_ERROR");
        expect(res.body.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
        expect(list.data).toEqual([]);
      },
    );

    test("when a rate above 100 % is sent, then the spec's bound refuses it with 400 VALIDATION_ERROR", async () => {
      const { testKey } = await server.newAccount();

      const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/charges/due-date", {
        key: testKey,
        body: { ...acceptanceBody(), interest: { mode: "PERCENTAGE_PER_CALENDAR_DAY", rateBps: 10001 } },
      });

      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.errors?.[0]?.path).toBe("interest.rateBps");
    });

    test("when a production key creates one and no bank is connected, then 403 TEST_MODE_ONLY in Portuguese saying why", async () => {
      const { liveKey } = await server.newAccount();

      const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/charges/due-date", {
        key: liveKey as string,
        body: acceptanceBody(),
      });

      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: "TEST_MODE_ONLY",
        message:
          "Cobranças com vencimento em produção precisam da conexão da plataforma com o banco; sem ela, só com chave de teste.",
      });
    });
  });

  describe("POST /api/v1/sandbox/transactions/{id}/pay on a date", () => {
    test("when the acceptance's charge is paid on the Tuesday, then the discount is taken and the breakdown paid is kept", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();
      const { id } = await bodyOf(create(testKey, body), 201);

      const paid = await bodyOf(payOn(testKey, id, addDays(body.dueDate, -3)), 200);
      const later = await read(testKey, id);

      expect(paid.status).toBe("PAID");
      expect(breakdown(paid)).toEqual(acceptanceTable.onTuesday);
      expect(paid.amountCents).toBe(49000);
      expect(later).toEqual(paid);
    });

    test("when another is paid 10 days late, then the fine and the interest are added, and transaction.paid carries the breakdown", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();
      const { id } = await bodyOf(create(testKey, body), 201);

      const paid = await bodyOf(payOn(testKey, id, addDays(body.dueDate, 10)), 200);
      const events = await bodyOf(
        api(testKey).GET("/api/v1/events", { params: { query: { type: "transaction.paid" } } }),
        200,
      );
      const balance = await bodyOf(api(testKey).GET("/api/v1/balance"), 200);

      expect(breakdown(paid)).toEqual(acceptanceTable.tenDaysLate);
      expect(paid.dueDateCharge?.amountDue).toMatchObject({
        daysLate: 10,
        interestDays: 10,
        paymentDate: addDays(body.dueDate, 10),
      });
      expect(paid.amountCents).toBe(51167);
      expect(parseBrCode(paid.pix.copyPaste).amountCents).toBe(51167);
      expect(events.data).toHaveLength(1);
      const data = (events.data[0]?.data as { object: Transaction }).object;
      expect(data.id).toBe(id);
      expect(breakdown(data)).toEqual(acceptanceTable.tenDaysLate);
      expect(balance.pendingCents).toBe(51167 - paid.feeCents);
    });

    test("when a charge due on a Sunday is paid on the Monday after, then no fine and no interest are due", async () => {
      const { testKey } = await server.newAccount();
      const sunday = nextOn(today(), 0, (date) => isBusinessDay(addDays(date, 1)));
      const body: Body = { ...acceptanceBody(), dueDate: sunday, discount: undefined } as Body;
      delete (body as Partial<Body>).discount;
      const { id, dueDateCharge } = await bodyOf(create(testKey, body), 201);

      const paid = await bodyOf(payOn(testKey, id, addDays(sunday, 1)), 200);

      expect(dueDateCharge?.adjustedDueDate).toBe(addDays(sunday, 1));
      expect(breakdown(paid)).toEqual({ ...acceptanceTable.onTuesday, discountCents: 0, finalCents: 50000 });
      expect(paid.dueDateCharge?.amountDue?.daysLate).toBe(0);
    });

    test.each([
      {
        name: "after the last payable day",
        date: (due: string) => addDays(due, 400),
        message: /não pode ser posterior ao último dia de pagamento/,
      },
      {
        name: "before the charge was created",
        date: (_due: string, t: string) => addDays(t, -1),
        message: /não pode ser anterior à criação da cobrança/,
      },
    ])(
      "when a payment date $name is given, then 400 VALIDATION_ERROR on paymentDate and it stays unpaid",
      async ({ date, message }) => {
        const { testKey } = await server.newAccount();
        const body = acceptanceBody();
        const { id } = await bodyOf(create(testKey, body), 201);

        const res = await payOn(testKey, id, date(body.dueDate, today()));

        expectStatus(res, 400);
        expect(res.body).toMatchObject({
          code: "VALIDATION_ERROR",
          errors: [{ path: "paymentDate", message: expect.stringMatching(message) }],
        });
        expect((await read(testKey, id)).status).toBe("WAITING_PAYMENT");
      },
    );

    test("when a payment date is given for a charge without a due date, then 400 VALIDATION_ERROR on paymentDate", async () => {
      const { testKey } = await server.newAccount();
      const { id } = await bodyOf(
        api(testKey).POST("/api/v1/charges/pix", {
          body: { amountCents: 8990, description: "Pedido", customer: { ...chargePayer } },
        }),
        201,
      );

      const res = await payOn(testKey, id, today());

      expectStatus(res, 400);
      expect(res.body).toMatchObject({ errors: [{ path: "paymentDate" }] });
    });
  });

  describe("GET /checkout/charges/{id}, the hosted page", () => {
    const page = (id: string) => fetch(`${server.baseUrl}/checkout/charges/${id}`);

    test("when a waiting charge's page is read, then it shows the due date, today's amount with its breakdown in Portuguese and the QR of that amount", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();
      const { id } = await bodyOf(create(testKey, body), 201);
      const [y, m, d] = body.dueDate.split("-");
      const until = addDays(body.dueDate, -2);

      const res = await page(id);
      const text = await res.text();
      const qr = await fetch(`${server.baseUrl}/checkout/charges/${id}/qr.png`);

      expect(res.status).toBe(200);
      expect(text).toContain(`Vencimento</dt>`);
      expect(text).toContain(`${d}/${m}/${y}`);
      expect(text).toContain(`Desconto até ${until.slice(8, 10)}/${until.slice(5, 7)}`);
      expect(text).toMatch(/Total hoje<\/dt>\s*<dd><strong data-amount-due>R\$\s490,00<\/strong>/);
      expect(text).toContain((await read(testKey, id)).pix.copyPaste);
      expect(qr.status).toBe(200);
      expect(qr.headers.get("content-type")).toBe("image/png");
    });

    test("when the charge was paid 10 days late, then the page is the receipt with the fine, the interest and the amount paid", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();
      const { id } = await bodyOf(create(testKey, body), 201);
      expectStatus(await payOn(testKey, id, addDays(body.dueDate, 10)), 200);

      const text = await (await page(id)).text();
      const qr = await fetch(`${server.baseUrl}/checkout/charges/${id}/qr.png`);

      expect(text).toContain("Pagamento confirmado");
      expect(text).toMatch(/Multa<\/dt>\s*<dd>\+ R\$\s10,00/);
      expect(text).toMatch(/Juros \(10 dias\)<\/dt>\s*<dd>\+ R\$\s1,67/);
      expect(text).toMatch(/Valor pago<\/dt>\s*<dd><strong data-amount-due>R\$\s511,67/);
      expect(qr.status).toBe(404);
    });

    test("when the test page's Simular pagamento is sent with a date 10 days late, then it is paid the fine and the interest; a date past the last day is refused in Portuguese", async () => {
      const { testKey } = await server.newAccount();
      const body = acceptanceBody();
      const { id } = await bodyOf(create(testKey, body), 201);
      const opened = await page(id);
      const cookie = (opened.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const csrf = (await opened.text()).match(/name="_csrf" value="([^"]+)"/)?.[1] ?? "";
      const simulate = (paymentDate: string) =>
        fetch(`${server.baseUrl}/checkout/charges/${id}/simulate`, {
          method: "POST",
          redirect: "manual",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: csrf, paymentDate }).toString(),
        });

      const refused = await simulate(addDays(body.dueDate, 400));
      const refusedText = await refused.text();
      const paid = await simulate(addDays(body.dueDate, 10));

      expect(refused.status).toBe(400);
      expect(refusedText).toContain("Data de pagamento: não pode ser posterior ao último dia de pagamento");
      expect(paid.status).toBe(303);
      expect(paid.headers.get("location")).toBe(`/checkout/charges/${id}`);
      expect(breakdown(await read(testKey, id))).toEqual(acceptanceTable.tenDaysLate);
    });

    test("when the id is a charge without a due date, or nothing, then 404", async () => {
      const { testKey } = await server.newAccount();
      const { id } = await bodyOf(
        api(testKey).POST("/api/v1/charges/pix", {
          body: { amountCents: 8990, description: "Pedido", customer: { ...chargePayer } },
        }),
        201,
      );

      expect((await page(id)).status).toBe(404);
      expect((await page("txn_naoexiste")).status).toBe(404);
    });
  });

  describe("after the last payable day", () => {
    test("when the clock passes the last payable day, then the charge reads EXPIRED, is listed so, and can no longer be paid", async () => {
      const { testKey } = await server.newAccount();
      const body = { ...acceptanceBody(), daysPayableAfterDue: 2 };
      const created = await bodyOf(create(testKey, body), 201);
      const last = created.dueDateCharge?.lastPayableDate as string;
      const start = server.clock.now();
      try {
        // The last payable day, 23:59 in Brasília: still payable; a minute later, EXPIRED.
        server.clock.set(`${last}T23:59:00.000-03:00`);
        const onLastDay = await read(testKey, created.id);
        server.clock.set(`${addDays(last, 1)}T00:00:00.000-03:00`);
        const after = await read(testKey, created.id);
        const listed = await bodyOf(
          api(testKey).GET("/api/v1/transactions", { params: { query: { status: "EXPIRED" } } }),
          200,
        );
        const paying = await payOn(testKey, created.id);

        expect(onLastDay.status).toBe("WAITING_PAYMENT");
        expect(breakdown(onLastDay)).toMatchObject({ fineCents: 1000 });
        expect(after.status).toBe("EXPIRED");
        expect(after.dueDateCharge?.amountDue).toBeUndefined();
        expect(listed.data.map((t) => t.id)).toEqual([created.id]);
        expect(paying.status).toBe(400);
      } finally {
        server.clock.set(start);
      }
    });
  });
}

for (const store of eachStore("due-date-charges")) {
  store.describe(`charges with a due date on the ${store.name} store`, () => dueDateSuite(store));
}
