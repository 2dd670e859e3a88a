import { bodyOf, byId, chargeBody, publicApi, type TestServer } from "../harness.js";
import type { FuzzTarget } from "./fuzzer.js";

/**
 * An account on `server` with something in it to fuzz: customers, charges (some paid and
 * released), a withdrawal and payment links, so generated requests can name real objects. Keys:
 * test (every permission), live, and a read-only test key.
 */
export async function prepareTarget(name: string, server: TestServer): Promise<FuzzTarget> {
  const account = await server.newAccount();
  const readOnly = await account.addKey({ permissions: ["transactions:read"] });
  const key = account.testKey;
  const api = publicApi(server.baseUrl, { key });
  const ids = new Map<string, string[]>();
  const remember = (id: string) => {
    const prefix = id.split("_")[0]!;
    ids.set(prefix, [...(ids.get(prefix) ?? []), id]);
  };
  const customer = await bodyOf(
    api.POST("/api/v1/customers", { body: { name: "Maria da Silva", document: "52998224725" } }),
    201,
  );
  remember(customer.id);
  for (let i = 0; i < 3; i++) {
    const charge = await bodyOf(
      api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 10_000 + i }) }),
      201,
    );
    remember(charge.id);
    if (i < 2) await bodyOf(api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
  }
  server.clock.advance(3 * 86_400);
  const withdrawal = await bodyOf(
    api.POST("/api/v1/withdrawals", {
      body: { amountCents: 1000, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" },
    }),
    201,
  );
  remember(withdrawal.id);
  for (let i = 0; i < 2; i++) {
    const link = await bodyOf(
      api.POST("/api/v1/payment-links", { body: { description: "Curso de fotografia", amountCents: 2500 } }),
      201,
    );
    remember(link.id);
  }
  return { name, baseUrl: server.baseUrl, keys: { test: key, live: account.liveKey, readOnly: readOnly.secret }, ids };
}
