import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Store } from "../../src/domain/ports/store.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { createPool, migrateDatabase, PostgresStore } from "../../src/store/postgres/index.js";
import type { components } from "../../../generated/admin-api.js";
import {
  bodyOf,
  byId,
  type ErrorBody,
  expectStatus,
  operatorApi,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
  testAdminToken,
} from "../harness.js";
import { createTestDatabase, describePg, migrateUpToBefore, type TestDatabase } from "../support/pg.js";

// Issue 14: the merchant's CNPJ (or CPF) on the account, set by the operator, and shown on the
// hosted checkout and receipt beside the name (docs/decisions/0010-br-code-and-merchant-identity.md). Through
// HTTP on both stores.

const cnpj = { typed: "11.222.333/0001-81", digits: "11222333000181", shown: "CNPJ 11.222.333/0001-81" };
const cpf = { typed: "529.982.247-25", digits: "52998224725", shown: "CPF ***.982.247-**" };

/** The visible text of a page: tags dropped, entities of the escaper decoded, spaces collapsed. */
const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x2F;|&#47;/g, "/")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

/** Each store: memory always, PostgreSQL when a server is there (`describePg`). */
interface StoreUnderTest {
  name: string;
  describe: (name: string, body: () => void) => void;
  open(): Promise<{ store: Store; drop(): Promise<void> }>;
}

const stores: StoreUnderTest[] = [
  { name: "memory", describe, open: async () => ({ store: new MemoryStore(), drop: async () => undefined }) },
  {
    name: "PostgreSQL",
    describe: describePg,
    open: async () => {
      const database: TestDatabase = await createTestDatabase("merchant_document");
      const store = new PostgresStore(createPool(database.url, { max: 4 }));
      return {
        store,
        drop: async () => {
          await store.close();
          await database.drop();
        },
      };
    },
  },
];

for (const { name, describe: describeStore, open } of stores) {
  describeStore(`the merchant's document on the ${name} store`, () => {
    let server: TestServer;
    let drop: () => Promise<void> = async () => undefined;
    beforeAll(async () => {
      const opened = await open();
      drop = opened.drop;
      server = await startTestServer({ store: opened.store });
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await drop();
    });

    const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });
    const readAccount = (id: string) => bodyOf(admin().GET("/admin/v1/accounts/{id}", byId(id)), 200);
    const patchAccount = (id: string, body: components["schemas"]["UpdateAccountRequest"]) =>
      admin().PATCH("/admin/v1/accounts/{id}", { ...byId(id), body });

    async function openAccount(extra: Partial<components["schemas"]["CreateAccountRequest"]> = {}) {
      const res = await admin().POST("/admin/v1/accounts", {
        body: { name: "Loja Exemplo Ltda", ownerEmail: "dono@loja.example", ...extra },
      });
      expectStatus(res, 201);
      return res.body;
    }

    async function accountCount() {
      let count = 0;
      let startingAfter: string | undefined;
      for (;;) {
        const page = await bodyOf(
          admin().GET("/admin/v1/accounts", {
            params: { query: { limit: 100, ...(startingAfter ? { startingAfter } : {}) } },
          }),
          200,
        );
        count += page.data.length;
        if (!page.hasMore) return count;
        startingAfter = page.data.at(-1)?.id;
      }
    }

    /** The account's checkout as a payer goes through it: form, Pix page, then the receipt. */
    async function checkoutPages(accountId: string) {
      const key = await bodyOf(
        admin().POST("/admin/v1/accounts/{id}/api-keys", { ...byId(accountId), body: { name: "loja", mode: "test" } }),
        201,
      );
      const link = await bodyOf(
        publicApi(server.baseUrl, { key: key.secret }).POST("/api/v1/payment-links", {
          body: { amountCents: 4990, description: "Curso de fotografia - turma de outubro" },
        }),
        201,
      );
      const path = new URL(link.url).pathname;

      const formRes = await fetch(`${server.baseUrl}${path}`);
      expect(formRes.status).toBe(200);
      const cookie = (formRes.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const form = await formRes.text();
      const hidden = Object.fromEntries(
        [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
      );
      const post = (to: string, fields: Record<string, string>) =>
        fetch(`${server.baseUrl}${to}`, {
          method: "POST",
          redirect: "manual",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
        });
      const submitted = await post(path, {
        ...hidden,
        name: "Maria da Silva Santos",
        email: "maria.santos@example.com.br",
        phone: "11987654321",
        document: "11144477735",
      });
      expect(submitted.status).toBe(303);
      const chargePath = submitted.headers.get("location") as string;
      const payment = await (await fetch(`${server.baseUrl}${chargePath}`, { headers: { cookie } })).text();
      const csrf = payment.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? "";
      expect((await post(`${chargePath}/simulate`, { _csrf: csrf })).status).toBe(303);
      const receipt = await (await fetch(`${server.baseUrl}${chargePath}`, { headers: { cookie } })).text();
      expect(receipt).toContain("Pagamento confirmado");
      return { form: textOf(form), payment: textOf(payment), receipt: textOf(receipt) };
    }

    test("when an account is opened with a punctuated CNPJ, then it reads back as digits with its type", async () => {
      const created = await openAccount({ document: cnpj.typed });

      expect(created).toMatchObject({ documentType: "CNPJ", document: cnpj.digits });
      expect(await readAccount(created.id)).toMatchObject({
        documentType: "CNPJ",
        document: cnpj.digits,
      });
    });

    test("when an account is opened without a document, then both fields read null", async () => {
      const created = await openAccount();

      expect(created).toMatchObject({ documentType: null, document: null });
      const accounts = await bodyOf(admin().GET("/admin/v1/accounts", { params: { query: { limit: 100 } } }), 200);
      const listed = accounts.data.find((a) => a.id === created.id);
      expect(listed).toMatchObject({ documentType: null, document: null });
    });

    test.each([
      { case: "a CNPJ whose check digits fail", document: "11.222.333/0001-82", status: 400, code: "REQUEST_ERROR" },
      { case: "a CPF whose check digits fail", document: "529.982.247-26", status: 400, code: "REQUEST_ERROR" },
      { case: "one repeated digit", document: "11111111111111", status: 400, code: "REQUEST_ERROR" },
      { case: "twelve digits", document: "112223330001", status: 400, code: "REQUEST_ERROR" },
      { case: "too short", document: "1122233", status: 400, code: "VALIDATION_ERROR" },
      { case: "other characters", document: "11.222.333/0001-8!", status: 400, code: "VALIDATION_ERROR" },
    ])("when an account is opened with $case, then $status $code and no account is opened", async (row) => {
      const before = await accountCount();

      // Some of these documents the document refuses (their form): sent untyped.
      const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/admin/v1/accounts", {
        admin: testAdminToken,
        body: { name: "Loja Exemplo Ltda", ownerEmail: "dono@loja.example", document: row.document },
      });

      expect(res.status).toBe(row.status);
      expect(res.body.code).toBe(row.code);
      if (row.code === "VALIDATION_ERROR") expect(res.body.errors?.map((e) => e.path)).toEqual(["document"]);
      else expect(res.body.message).toMatch(/^(CNPJ|CPF) inválido/);
      expect(await accountCount()).toBe(before);
    });

    test("when the operator sets, changes and removes the document, then each read follows and other fields stay", async () => {
      const { id } = await openAccount({ merchantCity: "CURITIBA" });

      const set = await patchAccount(id, { document: cnpj.digits });
      const kept = await patchAccount(id, { releasePeriodDays: 3 });
      const refused = await patchAccount(id, { document: "52998224726", name: "Outro Nome" });
      const changed = await patchAccount(id, { document: cpf.typed });
      const afterChange = await readAccount(id);
      const removed = await patchAccount(id, { document: null });

      expect(set.body).toMatchObject({ documentType: "CNPJ", document: cnpj.digits, merchantCity: "CURITIBA" });
      expect(kept.body).toMatchObject({ documentType: "CNPJ", document: cnpj.digits, releasePeriodDays: 3 });
      expectStatus(refused, 400);
      expect(refused.body.code).toBe("REQUEST_ERROR");
      expect(changed.body).toMatchObject({ documentType: "CPF", document: cpf.digits, name: "Loja Exemplo Ltda" });
      expect(afterChange).toMatchObject({ documentType: "CPF", document: cpf.digits });
      expect(removed.status).toBe(200);
      expect(await readAccount(id)).toMatchObject({
        documentType: null,
        document: null,
        releasePeriodDays: 3,
      });
    });

    test("when the merchant has a CNPJ, then the form, the Pix page and the receipt show it in full beside the name", async () => {
      const { id } = await openAccount({ document: cnpj.typed });

      const pages = await checkoutPages(id);

      for (const page of [pages.form, pages.payment, pages.receipt]) {
        expect(page).toContain("Recebedor");
        expect(page).toContain(`Loja Exemplo Ltda ${cnpj.shown}`);
      }
    });

    test("when the merchant has a CPF, then the pages show only its middle six digits, as Pix receipts do", async () => {
      const { id } = await openAccount({ document: cpf.digits });

      const pages = await checkoutPages(id);

      for (const page of [pages.form, pages.payment, pages.receipt]) {
        expect(page).toContain(`Loja Exemplo Ltda ${cpf.shown}`);
        expect(page).not.toContain(cpf.digits);
        expect(page).not.toContain("529.982.247-25");
      }
    });

    test("when the merchant has no document, then the pages name the merchant and show no document", async () => {
      const { id } = await openAccount();

      const pages = await checkoutPages(id);

      for (const page of [pages.form, pages.payment]) {
        expect(page).toContain("Recebedor: Loja Exemplo Ltda");
        expect(page).not.toMatch(/\b(CNPJ|CPF) [*\d]/);
      }
      // The payer's own CPF is on the receipt, masked, under "Pagador"; the merchant has none.
      expect(pages.receipt).toContain("Recebedor Loja Exemplo Ltda Pagador Maria da Silva Santos CPF ***.444.777-**");
    });
  });
}

describePg("the migration that adds the merchant's document", () => {
  test("when accounts existed before it, then they read with no document and can be given one", async () => {
    const database = await createTestDatabase("merchant_document_migration", { migrate: false });
    const sql = new pg.Client({ connectionString: database.url });
    let server: TestServer | undefined;
    let store: PostgresStore | undefined;
    try {
      // Every migration before the one that added the document.
      await migrateUpToBefore(database.url, "1764200000000");
      await sql.connect();
      await sql.query(
        `INSERT INTO accounts (id, name, owner_email, verified, charge_fee_cents, charge_fee_bps, withdraw_fee_cents,
           release_period_days, merchant_city, pix_key, created_at, updated_at)
         VALUES ('acc_Antiga1', 'Loja Antiga Ltda', 'dono@antiga.example', true, 80, 0, 80, 1, 'SAO PAULO',
           '7d9f0335-8dcc-4054-9bf9-0dbd61d36906', '2026-10-04T15:30:00.000Z', '2026-10-04T15:30:00.000Z')`,
      );

      await migrateDatabase(database.url);
      store = new PostgresStore(createPool(database.url, { max: 2 }));
      server = await startTestServer({ store });
      const admin = operatorApi(server.baseUrl, { token: testAdminToken });

      const read = await admin.GET("/admin/v1/accounts/{id}", byId("acc_Antiga1"));
      const given = await admin.PATCH("/admin/v1/accounts/{id}", {
        ...byId("acc_Antiga1"),
        body: { document: cnpj.typed },
      });

      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ name: "Loja Antiga Ltda", documentType: null, document: null });
      expect(given.body).toMatchObject({ documentType: "CNPJ", document: cnpj.digits });
      await expect(sql.query("UPDATE accounts SET document_type = NULL WHERE id = 'acc_Antiga1'")).rejects.toThrow(
        /accounts_document_with_type/,
      );
    } finally {
      await server?.close();
      await store?.close();
      await sql.end();
      await database.drop();
    }
  }, 60_000);
});
