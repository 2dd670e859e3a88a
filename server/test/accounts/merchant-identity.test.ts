import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { createAccount } from "../../src/domain/accounts/index.js";
import { parseBrCode } from "../../src/pix/brcode.js";
import {
  bodyOf,
  byId,
  chargeBody,
  expectStatus,
  operatorApi,
  publicApi,
  type TestServer,
  testAdminToken,
} from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";

// An account's name and city are printed (ASCII-folded) in every BR Code of the account. A name
// or city of which nothing survives the folding used to be accepted, and every charge of the
// account then answered 500 (issue 24 §1). docs/decisions/0010-br-code-and-merchant-identity.md.

const admin = (server: TestServer) => operatorApi(server.baseUrl, { token: testAdminToken });

/** A test key for `accountId`, made through the operator API. */
async function testKeyOf(server: TestServer, accountId: string): Promise<string> {
  const key = await admin(server).POST("/admin/v1/accounts/{id}/api-keys", {
    ...byId(accountId),
    body: { name: "fuzz", mode: "test" },
  });
  expectStatus(key, 201);
  return key.body.secret;
}

/** A charge of the account of `key` (the test fails unless it is made). */
async function chargeOf(server: TestServer, key: string) {
  const charge = await publicApi(server.baseUrl, { key }).POST("/api/v1/charges/pix", { body: chargeBody() });
  expectStatus(charge, 201);
  return charge;
}

const accountCount = async (server: TestServer) =>
  (await bodyOf(admin(server).GET("/admin/v1/accounts", { params: { query: { limit: 100 } } }), 200)).data.length;

const unprintable = [
  { name: "when the name is in Japanese only, then 400 on name", body: { name: "東京商店" }, field: "name" },
  { name: "when the name is only emojis, then 400 on name", body: { name: "🙂🙂" }, field: "name" },
  { name: "when the name is only spaces, then 400 on name", body: { name: "  " }, field: "name" },
  { name: "when the name is only dashes, then 400 on name", body: { name: "—–" }, field: "name" },
  { name: "when the name is ASCII symbols only, then 400 on name", body: { name: "--" }, field: "name" },
  {
    name: "when the city is in Chinese only, then 400 on merchantCity",
    body: { name: "Loja Exemplo", merchantCity: "北京" },
    field: "merchantCity",
  },
];

for (const store of eachStore("merchant_identity")) {
  store.describe(`merchant name and city on the ${store.name} store`, () => {
    const server = serverOn(store);

    test.each(unprintable)("$name, in Portuguese, and no account is opened", async ({ body, field }) => {
      const before = await accountCount(server);
      const res = await admin(server).POST("/admin/v1/accounts", {
        body: { ownerEmail: "dono@loja.example", ...body },
      });
      expectStatus(res, 400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.errors).toEqual([{ path: field, message: expect.stringContaining("alfabeto latino") }]);
      expect(await accountCount(server)).toBe(before);
    });

    test.each(unprintable)("$name on update too, and the account keeps its name and city", async ({ body, field }) => {
      const created = await bodyOf(
        admin(server).POST("/admin/v1/accounts", { body: { name: "Loja Boa", ownerEmail: "d@loja.example" } }),
        201,
      );
      const res = await admin(server).PATCH("/admin/v1/accounts/{id}", { ...byId(created.id), body });
      expectStatus(res, 400);
      expect(res.body.errors?.[0]?.path).toBe(field);
      const after = await admin(server).GET("/admin/v1/accounts/{id}", byId(created.id));
      expect(after.body).toMatchObject({ name: "Loja Boa", merchantCity: "SAO PAULO" });
    });

    test("when a name mixes another script with Latin letters, then the BR Code prints the Latin part", async () => {
      const created = await admin(server).POST("/admin/v1/accounts", {
        body: { name: "東京 Sushi Bar 🙂", merchantCity: "São Paulo 北", ownerEmail: "d@sushi.example" },
      });
      expectStatus(created, 201);
      const charge = await chargeOf(server, await testKeyOf(server, created.body.id));
      expect(parseBrCode(charge.body.pix.copyPaste)).toMatchObject({
        merchantName: "SUSHI BAR",
        merchantCity: "SAO PAULO",
        crcValid: true,
      });
    });

    test("when an account was stored before the rule with an unprintable name and city, then its charges are made with its CNPJ and BRASIL", async () => {
      const now = server.clock.now().toISOString();
      const stored = await server.store.transaction((tx) =>
        createAccount(tx, { name: "Loja", ownerEmail: "old@loja.example", document: "11222333000181" }, now),
      );
      await server.store.transaction((tx) => tx.accounts.update({ ...stored, name: "東京商店", merchantCity: "北京" }));
      const charge = await chargeOf(server, await testKeyOf(server, stored.id));
      expect(parseBrCode(charge.body.pix.copyPaste)).toMatchObject({
        merchantName: "CNPJ 11222333000181",
        merchantCity: "BRASIL",
        crcValid: true,
      });
    });

    test("when such an account has no CNPJ, then its BR Code names it by its id", async () => {
      const now = server.clock.now().toISOString();
      const stored = await server.store.transaction((tx) =>
        createAccount(tx, { name: "Loja", ownerEmail: "old@loja.example" }, now),
      );
      await server.store.transaction((tx) => tx.accounts.update({ ...stored, name: "🙂🙂" }));
      const charge = await chargeOf(server, await testKeyOf(server, stored.id));
      expect(parseBrCode(charge.body.pix.copyPaste)).toMatchObject({
        merchantName: stored.id.toUpperCase(),
        merchantCity: "SAO PAULO",
        crcValid: true,
      });
    });

    test("when any Unicode name and city go through the operator API into a charge, then never a 500 and the BR Code is valid", async () => {
      // Any code point, biased towards the scripts, emojis, marks and dashes that fold to nothing.
      const tricky = fc.constantFrom(..."東京商店北京🙂👍🏽—–  \u0301\u200bßÆØa1É-.");
      const anyCodePoint = fc.string({ unit: "binary", minLength: 1, maxLength: 1 });
      const piece = fc.oneof(
        fc.string({ unit: "binary", maxLength: 130 }),
        fc.string({ unit: tricky, maxLength: 40 }),
        fc.string({ unit: fc.oneof(tricky, anyCodePoint), maxLength: 70 }),
      );
      // Some printable ASCII between two pieces, so that many accounts are opened and charged.
      const text = fc.oneof(
        piece,
        fc
          .tuple(piece, fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 6 }), piece)
          .map((p) => p.join("")),
      );
      await fc.assert(
        fc.asyncProperty(text, fc.option(text, { nil: undefined }), async (name, merchantCity) => {
          const created = await admin(server).POST("/admin/v1/accounts", {
            body: { name, ownerEmail: "fuzz@loja.example", ...(merchantCity === undefined ? {} : { merchantCity }) },
          });
          expect([201, 400]).toContain(created.status);
          if (created.status === 400) {
            expect(created.body.code).toBe("VALIDATION_ERROR");
            return;
          }
          expectStatus(created, 201);
          const charge = await chargeOf(server, await testKeyOf(server, created.body.id));
          const code = parseBrCode(charge.body.pix.copyPaste);
          expect(code.crcValid).toBe(true);
          expect(code.merchantName).toMatch(/[A-Z0-9]/);
          expect(code.merchantCity).toMatch(/[A-Z0-9]/);
        }),
        { numRuns: 100 },
      );
    }, 120_000);
  });
}

describe("npm run admin accounts create", () => {
  const server = serverOn(eachStore("merchant_identity_cli")[0]!);

  test("when the name has nothing the BR Code can print, then the CLI exits 1 with the API's Portuguese message", async () => {
    const err: string[] = [];
    const error = vi.spyOn(console, "error").mockImplementation((m: unknown) => void err.push(String(m)));
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const code = await runCli([
        "--server",
        server.baseUrl,
        "--token",
        testAdminToken,
        "accounts",
        "create",
        "--name",
        "東京商店",
        "--owner-email",
        "cli@loja.example",
      ]);
      expect(code).toBe(1);
      expect(err.join("\n")).toContain("alfabeto latino");
    } finally {
      error.mockRestore();
      log.mockRestore();
    }
  });
});
