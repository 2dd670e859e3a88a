import { expect, test } from "vitest";
import type { Actor } from "../../src/domain/deps.js";
import { DomainError } from "../../src/domain/core/errors.js";
import { amountLimits } from "../../src/domain/core/policy.js";
import { chargeBody, type ErrorBody, expectStatus, publicApi, rawCall } from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";

// The largest amount (docs/decisions/0004-api-conventions-the-seed-leaves-open.md, "Largest amount"): what BR Code field 54 can carry. Above
// it a charge used to answer 500, a payment link 201 and then 500 on every checkout, and `1e21`
// failed the PostgreSQL BIGINT. Now the spec refuses it (400 VALIDATION_ERROR on `amountCents`),
// and the domain refuses it again before any write, on both stores.

const tooLarge = [
  { name: "one cent over the largest amount", amountCents: amountLimits.maxCents + 1 },
  { name: "2^53", amountCents: 2 ** 53 },
  { name: "1e20", amountCents: 1e20 },
  { name: "1e21", amountCents: 1e21 },
];

const routes = [
  {
    route: "/api/v1/charges/pix",
    list: "/api/v1/transactions" as const,
    body: (amountCents: number) => chargeBody({ amountCents }),
  },
  {
    route: "/api/v1/payment-links",
    list: "/api/v1/payment-links" as const,
    body: (amountCents: number) => ({ amountCents, description: "Curso online de fotografia" }),
  },
  {
    route: "/api/v1/withdrawals",
    list: "/api/v1/withdrawals" as const,
    body: (amountCents: number) =>
      ({ amountCents, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" }) as const,
  },
];

const cases = routes.flatMap((r) => tooLarge.map((t) => ({ ...r, ...t })));

for (const store of eachStore("amounts")) {
  store.describe(`amounts above the largest on the ${store.name} store`, () => {
    const server = serverOn(store);

    async function nothingCreated(key: string) {
      for (const list of [...routes.map((r) => r.list), "/api/v1/customers" as const]) {
        const res = await publicApi(server.baseUrl, { key }).GET(list);
        expect(res.status, list).toBe(200);
        expectStatus(res, 200);
        expect(res.body.data, list).toEqual([]);
      }
    }

    test.each(cases)(
      "when POST $route has $name, then 400 VALIDATION_ERROR on amountCents and nothing is created",
      async (c) => {
        const { testKey } = await server.newAccount();

        // Amounts the document refuses: sent untyped.
        const res = await rawCall<ErrorBody>(server.baseUrl, "POST", c.route, {
          key: testKey,
          body: c.body(c.amountCents),
        });

        expect(res.status).toBe(400);
        expect(res.body.code).toBe("VALIDATION_ERROR");
        expect(res.body.errors).toEqual([expect.objectContaining({ path: "amountCents" })]);
        await nothingCreated(testKey);
      },
    );

    test("when an amount is exactly the largest, then a charge and a payment link are created with it", async () => {
      const { testKey } = await server.newAccount();

      const api = publicApi(server.baseUrl, { key: testKey });
      const charge = await api.POST("/api/v1/charges/pix", {
        body: chargeBody({ amountCents: amountLimits.maxCents }),
      });
      const link = await api.POST("/api/v1/payment-links", {
        body: { amountCents: amountLimits.maxCents, description: "Curso online de fotografia" },
      });

      expectStatus(charge, 201);
      expect(charge.body.amountCents).toBe(amountLimits.maxCents);
      expect(charge.body.pix.copyPaste).toContain("54139999999999.99");
      expectStatus(link, 201);
      expect(link.body.amountCents).toBe(amountLimits.maxCents);
    });

    test.each(tooLarge)(
      "when the domain is called past the validator with $name, then each create refuses it on amountCents and nothing is created",
      async ({ amountCents }) => {
        const { testKey } = await server.newAccount();
        const actor = (permission: string): Promise<Actor> =>
          server.domain.authentication.authenticate({ secret: testKey, ip: "127.0.0.1", permission });
        const creates = [
          async () => server.domain.charges.create(await actor("charges:write"), chargeBody({ amountCents }) as never),
          async () =>
            server.domain.paymentLinks.create(
              await actor("payment_links:write"),
              routes[1]!.body(amountCents) as never,
            ),
          async () =>
            server.domain.withdrawals.create(await actor("withdrawals:write"), routes[2]!.body(amountCents) as never),
        ];

        for (const create of creates) {
          const error = await create().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(DomainError);
          expect(error).toMatchObject({
            code: "VALIDATION_ERROR",
            errors: [expect.objectContaining({ path: "amountCents" })],
          });
        }
        await nothingCreated(testKey);
      },
    );
  });
}
