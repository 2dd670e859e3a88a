import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../../../fake-bank/src/bank.js";
import { pixBankFrom, type BankClient } from "../../src/bank/client.js";
import { pixPayoutsFrom } from "../../src/bank/payouts.js";
import { BankRefusedError, BankUnavailableError } from "../../src/domain/ports/pix-bank.js";
import type { PixPayouts } from "../../src/domain/ports/pix-payouts.js";
import { credentialsOf } from "../support/fake-bank-credentials.js";
import { eventually, expectEveryPayoutRequestValid } from "./payouts-support.js";

// Efí's payouts (server/src/bank/payouts-efi.ts) against the fake bank in the efi dialect: real
// TLS, mutual TLS and OAuth2, every request and answer checked against spec/bank/efi-payouts.

const route = /^\/v[23]\/gn\//;
let serial = 0;
const transferId = () => `efitest${Date.now().toString(36)}${(serial++).toString().padStart(6, "0")}`;

describe("Efí's payouts against the fake bank", () => {
  let bank: FakeBank;
  let client: BankClient;
  let payouts: PixPayouts;

  beforeAll(async () => {
    bank = await startFakeBank({ dialect: "efi", payouts: { mode: "pay", delayMs: 30 } });
    const credentials = credentialsOf(bank);
    client = pixBankFrom(credentials, { timeoutMs: 1_500 });
    const made = pixPayoutsFrom(credentials, client.transport);
    if (made === null) throw new Error("the efi dialect has payouts");
    payouts = made;
  });
  afterAll(async () => {
    await client?.close();
    await bank?.close();
  });
  afterEach(() => {
    bank.clearFaults();
    bank.payouts?.setPolicy({ mode: "pay", delayMs: 30 });
    expectEveryPayoutRequestValid(bank, route);
  });

  const balance = () => bank.payouts?.balanceOf(bank.customer.clientId) ?? Number.NaN;

  test("when a transfer is sent, then it is pending with its end-to-end id, and read back by our id it ends paid", async () => {
    const before = balance();
    const id = transferId();
    const sent = await payouts.send({ transferId: id, amountCents: 1234, destination: { key: "joao@example.com" } });
    expect(sent).toMatchObject({ transferId: id, status: "PENDING", amountCents: 1234, bankReference: null });
    expect(sent.endToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    expect(balance()).toBe(before - 1234);
    await eventually(async () => (await payouts.read({ transferId: id, bankReference: null }))?.status === "PAID");
    expect(await payouts.read({ transferId: id, bankReference: null })).toMatchObject({
      transferId: id,
      status: "PAID",
      amountCents: 1234,
      endToEndId: sent.endToEndId,
      reason: null,
    });
  });

  test("when a send is retried with the same id, then the bank pays once and the retry answers the same transfer", async () => {
    const before = balance();
    const id = transferId();
    const request = { transferId: id, amountCents: 500, destination: { key: "maria@example.com" } };
    const first = await payouts.send(request);
    const again = await payouts.send(request);
    expect(again).toMatchObject({ transferId: id, amountCents: 500, endToEndId: first.endToEndId });
    expect(bank.payouts?.list().filter((p) => p.id === id)).toHaveLength(1);
    expect(balance()).toBe(before - 500);
    const puts = bank.requests().filter((r) => r.method === "PUT" && r.path.endsWith(`/${id}`));
    expect(puts.map((r) => r.status)).toEqual([201, 409]);
  });

  test("when the bank's answer is lost, then the outcome is unknown, the read by our id finds the transfer, and a retry pays nothing more", async () => {
    const before = balance();
    const id = transferId();
    bank.payouts?.loseAnswers(1);
    const request = { transferId: id, amountCents: 700, destination: { key: "ana@example.com" } };
    await expect(payouts.send(request)).rejects.toBeInstanceOf(BankUnavailableError);
    const read = await payouts.read({ transferId: id, bankReference: null });
    expect(read).toMatchObject({ transferId: id, amountCents: 700 });
    const retried = await payouts.send(request);
    expect(retried.endToEndId).toBe(read?.endToEndId);
    expect(bank.payouts?.list().filter((p) => p.id === id)).toHaveLength(1);
    expect(balance()).toBe(before - 700);
  });

  test("when the same id is sent with another amount, then it is refused and nothing more is paid", async () => {
    const id = transferId();
    await payouts.send({ transferId: id, amountCents: 100, destination: { key: "a@example.com" } });
    const before = balance();
    const refused = await payouts
      .send({ transferId: id, amountCents: 200, destination: { key: "a@example.com" } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BankRefusedError);
    expect((refused as BankRefusedError).status).toBe(409);
    expect(balance()).toBe(before);
  });

  test("when the bank fails a transfer, then the read says failed with the bank's reason and the amount is back in the balance", async () => {
    bank.payouts?.setPolicy({ mode: "pending" });
    const before = balance();
    const id = transferId();
    await payouts.send({ transferId: id, amountCents: 900, destination: { key: "b@example.com" } });
    expect(await payouts.read({ transferId: id, bankReference: null })).toMatchObject({ status: "PENDING" });
    bank.payouts?.settle(id, "fail", "Conta do recebedor encerrada");
    const read = await payouts.read({ transferId: id, bankReference: null });
    expect(read).toMatchObject({ status: "FAILED", amountCents: 900 });
    expect(read?.reason).toBeTruthy();
    expect(balance()).toBe(before);
  });

  test("when the control API holds transfers pending and then fails one, then the read follows it and the balance set there is read", async () => {
    const control = (method: string, path: string, body?: unknown) =>
      fetch(`${bank.controlUrl}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await control("PUT", "/payout-policy", { mode: "pending" })).status).toBe(200);
    expect((await control("PUT", "/balance", { amountCents: 50_000 })).status).toBe(200);
    expect(await payouts.balance()).toEqual({ availableCents: 50_000 });
    const id = transferId();
    await payouts.send({ transferId: id, amountCents: 10_000, destination: { key: "f@example.com" } });
    expect(await payouts.balance()).toEqual({ availableCents: 40_000 });
    const failed = await control("POST", `/payouts/${id}/fail`, { reason: "Chave inexistente" });
    expect(failed.status).toBe(200);
    expect(await payouts.read({ transferId: id, bankReference: null })).toMatchObject({ status: "FAILED" });
    expect(await payouts.balance()).toEqual({ availableCents: 50_000 });
    expect((await control("POST", `/payouts/${id}/pay`)).status).toBe(400);
    bank.payouts?.setBalance(bank.customer.clientId, 100_000_000);
  });

  test("when a transfer the bank never received is read, then it is null", async () => {
    expect(await payouts.read({ transferId: transferId(), bankReference: null })).toBeNull();
  });

  test("when the balance is read, then it is the account's in cents; a transfer above it is refused", async () => {
    bank.payouts?.setBalance(bank.customer.clientId, 123_456);
    expect(await payouts.balance()).toEqual({ availableCents: 123_456 });
    const refused = await payouts
      .send({ transferId: transferId(), amountCents: 123_457, destination: { key: "c@example.com" } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BankRefusedError);
    expect((refused as BankRefusedError).status).toBe(422);
    expect(await payouts.balance()).toEqual({ availableCents: 123_456 });
    bank.payouts?.setBalance(bank.customer.clientId, 100_000_000);
  });

  test("when the bank answers 503, then the send is BankUnavailableError and nothing was paid", async () => {
    const before = balance();
    bank.faultCalls({ kind: "status", status: 503, count: 1, route: "^PUT /v3/gn/pix/" });
    const id = transferId();
    await expect(
      payouts.send({ transferId: id, amountCents: 300, destination: { key: "d@example.com" } }),
    ).rejects.toBeInstanceOf(BankUnavailableError);
    expect(await payouts.read({ transferId: id, bankReference: null })).toBeNull();
    expect(balance()).toBe(before);
  });
});
