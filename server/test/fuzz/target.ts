import { call, chargeBody, type TestServer } from "../harness.js";
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
  const ids = new Map<string, string[]>();
  const remember = (id: unknown) => {
    if (typeof id !== "string") throw new Error(`fuzz set-up: no id (${String(id)})`);
    const prefix = id.split("_")[0]!;
    ids.set(prefix, [...(ids.get(prefix) ?? []), id]);
  };
  const post = async (path: string, body?: unknown) => {
    const res = await call(server.baseUrl, "POST", path, { key, ...(body === undefined ? {} : { body }) });
    if (res.status >= 300) throw new Error(`fuzz set-up: POST ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  remember((await post("/api/v1/customers", { name: "Maria da Silva", document: "52998224725" })).id);
  for (let i = 0; i < 3; i++) {
    const charge = await post("/api/v1/charges/pix", chargeBody({ amountCents: 10_000 + i }));
    remember(charge.id);
    if (i < 2) await post(`/api/v1/sandbox/transactions/${charge.id}/pay`);
  }
  server.clock.advance(3 * 86_400);
  remember(
    (
      await post("/api/v1/withdrawals", {
        amountCents: 1000,
        pixKey: "maria.santos@example.com.br",
        pixKeyType: "EMAIL",
      })
    ).id,
  );
  for (let i = 0; i < 2; i++)
    remember((await post("/api/v1/payment-links", { description: "Curso de fotografia", amountCents: 2500 })).id);
  return { name, baseUrl: server.baseUrl, keys: { test: key, live: account.liveKey, readOnly: readOnly.secret }, ids };
}
