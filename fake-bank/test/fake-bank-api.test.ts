import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../src/bank.js";
import { call, tokenFor } from "./client.js";

const txid = "Tx26CharactersLongABCDEF0123";

describe("fake bank: the API Pix over mutual TLS and OAuth2", () => {
  let bank: FakeBank;
  let token: string;
  const api = (path: string, init: Parameters<typeof call>[1] extends infer O ? Partial<O> : never = {}) =>
    call(`${bank.baseUrl}${path}`, { ca: bank.caPem, identity: bank.customer, token, ...init });

  beforeAll(async () => {
    bank = await startFakeBank({ customer: { keys: ["loja@example.com"] } });
    token = await tokenFor(bank.tokenUrl, bank.caPem, bank.customer);
  });
  afterAll(async () => {
    await bank?.close();
  });

  test("when a cob is created, then it reads back with a dynamic BR Code pointing at its location", async () => {
    const created = await api(`/cob/${txid}`, {
      method: "PUT",
      json: { calendario: { expiracao: 3600 }, valor: { original: "12.34" }, chave: "loja@example.com" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.status).toBe("ATIVA");
    expect(created.body.pixCopiaECola).toContain(created.body.location);
    const read = await api(`/cob/${txid}`);
    expect(read.status).toBe(200);
    expect(read.body.valor.original).toBe("12.34");
    expect(bank.requests().filter((r) => r.responseValid === false)).toEqual([]);
  });
});
