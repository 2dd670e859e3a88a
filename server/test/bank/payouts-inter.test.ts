import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../../../fake-bank/src/bank.js";
import { pixBankFrom, type BankClient } from "../../src/bank/client.js";
import { pixPayoutsFrom } from "../../src/bank/payouts.js";
import { idempotencyKeyOf } from "../../src/bank/payouts-inter.js";
import { BankRefusedError, BankUnavailableError } from "../../src/domain/ports/pix-bank.js";
import type { PixPayouts } from "../../src/domain/ports/pix-payouts.js";
import { credentialsOf } from "../support/fake-bank-credentials.js";
import { eventually, expectEveryPayoutRequestValid } from "./payouts-support.js";

// Inter's payouts (server/src/bank/payouts-inter.ts) against the fake bank in the inter dialect:
// real TLS, mutual TLS and OAuth2 (a token of its own for the payout scopes), every request and
// answer checked against spec/bank/inter-payouts.

const route = /^\/banking\/v2\//;
let serial = 0;
const transferId = () => `intertest${Date.now().toString(36)}${(serial++).toString().padStart(6, "0")}`;

describe("Inter's payouts against the fake bank", () => {
  let bank: FakeBank;
  let client: BankClient;
  let payouts: PixPayouts;

  beforeAll(async () => {
    bank = await startFakeBank({
      dialect: "inter",
      payouts: { mode: "pay", delayMs: 30, approvalAboveCents: 1_000_000 },
    });
    const credentials = credentialsOf(bank);
    client = pixBankFrom(credentials, { timeoutMs: 1_500 });
    const made = pixPayoutsFrom(credentials, client.transport);
    if (made === null) throw new Error("the inter dialect has payouts");
    payouts = made;
  });
  afterAll(async () => {
    await client?.close();
    await bank?.close();
  });
  afterEach(() => {
    bank.clearFaults();
    bank.payouts?.setPolicy({ mode: "pay", delayMs: 30, approvalAboveCents: 1_000_000 });
    expectEveryPayoutRequestValid(bank, route);
  });

  const balance = () => bank.payouts?.balanceOf(bank.customer.clientId) ?? Number.NaN;
  const recordsOf = (id: string) => bank.payouts?.list().filter((p) => p.id === idempotencyKeyOf(id)) ?? [];

  test("when a transfer is sent, then it is pending with Inter's code, and read back by that code it ends paid", async () => {
    const before = balance();
    const id = transferId();
    const sent = await payouts.send({ transferId: id, amountCents: 4321, destination: { key: "joao@example.com" } });
    expect(sent).toMatchObject({ transferId: id, status: "PENDING", amountCents: 4321 });
    expect(sent.bankReference).toEqual(expect.any(String));
    expect(balance()).toBe(before - 4321);
    const reference = { transferId: id, bankReference: sent.bankReference };
    await eventually(async () => (await payouts.read(reference))?.status === "PAID");
    const read = await payouts.read(reference);
    expect(read).toMatchObject({ transferId: id, status: "PAID", amountCents: 4321, reason: null });
    expect(read?.endToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
  });

  test("when a send is retried with the same id, then the same idempotency key is sent, the bank pays once and answers the same transfer", async () => {
    const before = balance();
    const id = transferId();
    const request = { transferId: id, amountCents: 500, destination: { key: "maria@example.com" } };
    const first = await payouts.send(request);
    const again = await payouts.send(request);
    expect(again.bankReference).toBe(first.bankReference);
    expect(recordsOf(id)).toHaveLength(1);
    expect(balance()).toBe(before - 500);
  });

  test("when the bank's answer is lost, then the outcome is unknown, and sending again with the same id answers the transfer made, paid once", async () => {
    expect(payouts.readsByTransferId).toBe(false);
    const before = balance();
    const id = transferId();
    bank.payouts?.loseAnswers(1);
    const request = { transferId: id, amountCents: 700, destination: { key: "ana@example.com" } };
    await expect(payouts.send(request)).rejects.toBeInstanceOf(BankUnavailableError);
    expect(recordsOf(id)).toHaveLength(1);
    const again = await payouts.send(request);
    expect(again.bankReference).toBe(recordsOf(id)[0]?.code);
    expect(await payouts.read({ transferId: id, bankReference: again.bankReference })).toMatchObject({
      amountCents: 700,
    });
    expect(recordsOf(id)).toHaveLength(1);
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

  test("when a transfer is above the account's threshold, then it waits for approval, and approved at the bank it is paid", async () => {
    const id = transferId();
    const sent = await payouts.send({ transferId: id, amountCents: 1_000_001, destination: { key: "b@example.com" } });
    expect(sent.status).toBe("AWAITING_APPROVAL");
    const reference = { transferId: id, bankReference: sent.bankReference };
    expect(await payouts.read(reference)).toMatchObject({ status: "AWAITING_APPROVAL" });
    bank.payouts?.approve(sent.bankReference ?? "");
    await eventually(async () => (await payouts.read(reference))?.status === "PAID");
  });

  test("when a transfer waiting for approval is rejected at the bank, then it is failed and the amount is back in the balance", async () => {
    const before = balance();
    const id = transferId();
    const sent = await payouts.send({ transferId: id, amountCents: 2_000_000, destination: { key: "c@example.com" } });
    expect(balance()).toBe(before - 2_000_000);
    bank.payouts?.reject(sent.bankReference ?? "", "Reprovado pelo gestor");
    const read = await payouts.read({ transferId: id, bankReference: sent.bankReference });
    expect(read).toMatchObject({ status: "FAILED", reason: "Reprovado pelo gestor" });
    expect(balance()).toBe(before);
  });

  test("when the bank fails a transfer, then the read says failed with the bank's reason", async () => {
    bank.payouts?.setPolicy({ mode: "fail", delayMs: 0 });
    const id = transferId();
    const sent = await payouts.send({ transferId: id, amountCents: 800, destination: { key: "d@example.com" } });
    const reference = { transferId: id, bankReference: sent.bankReference };
    await eventually(async () => (await payouts.read(reference))?.status === "FAILED");
    expect((await payouts.read(reference))?.reason).toBeTruthy();
  });

  test("when a code the bank never gave is read, then it is null; without a code the read is not possible", async () => {
    expect(
      await payouts.read({ transferId: transferId(), bankReference: "00000000-0000-4000-8000-000000000000" }),
    ).toBeNull();
    await expect(payouts.read({ transferId: transferId(), bankReference: null })).rejects.toBeInstanceOf(TypeError);
  });

  test("when the balance is read, then it is the account's available amount in cents; a transfer above it is refused", async () => {
    bank.payouts?.setBalance(bank.customer.clientId, 250_075);
    expect(await payouts.balance()).toEqual({ availableCents: 250_075 });
    const refused = await payouts
      .send({ transferId: transferId(), amountCents: 250_076, destination: { key: "e@example.com" } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BankRefusedError);
    expect((refused as BankRefusedError).status).toBe(422);
    bank.payouts?.setBalance(bank.customer.clientId, 100_000_000);
  });
});

describe("Inter's idempotency key", () => {
  test("when it is derived from a transfer id, then it is a version 5 UUID, the same for the same id and another for another", () => {
    const key = idempotencyKeyOf("saque123parte1");
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(idempotencyKeyOf("saque123parte1")).toBe(key);
    expect(idempotencyKeyOf("saque123parte2")).not.toBe(key);
  });
});
