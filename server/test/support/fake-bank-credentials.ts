import { startFakeBank, type FakeBank, type FakeBankOptions } from "../../../fake-bank/src/bank.js";
import type { components } from "../../../generated/admin-api.js";
import { type BankClient, type BankClientOptions, pixBankFrom } from "../../src/bank/client.js";
import type { BankCredentials } from "../../src/domain/bank/index.js";

/** The connection to a fake bank's first customer, as the adapter takes it; `overrides` to spoil a part. */
export function credentialsOf(bank: FakeBank, overrides: Partial<BankCredentials> = {}): BankCredentials {
  return {
    version: 1,
    baseUrl: bank.baseUrl,
    tokenUrl: bank.tokenUrl,
    clientId: bank.customer.clientId,
    clientSecret: bank.customer.clientSecret,
    certificate: { format: "pem", certPem: bank.customer.certPem, keyPem: bank.customer.keyPem },
    bankCaPem: bank.caPem,
    pixKey: bank.customer.keys[0] ?? "",
    dialect: bank.dialect,
    webhookUrl: null,
    certificateNotAfter: bank.customer.certificateExpiresAt,
    payoutLimitCents: 1_500_000,
    ...overrides,
  };
}

type ConnectionBody = components["schemas"]["SetBankConnectionRequest"];

/** The operator's `PUT /admin/v1/bank-connection` body naming a fake bank's first customer; `overrides` add or change a part. */
export function connectionBodyOf(bank: FakeBank, overrides: Partial<ConnectionBody> = {}): ConnectionBody {
  return {
    baseUrl: bank.baseUrl,
    tokenUrl: bank.tokenUrl,
    clientId: bank.customer.clientId,
    clientSecret: bank.customer.clientSecret,
    certificate: { format: "pem", certificatePem: bank.customer.certPem, privateKeyPem: bank.customer.keyPem },
    bankCaPem: bank.caPem,
    pixKey: bank.customer.keys[0] as string,
    dialect: bank.dialect,
    ...overrides,
  };
}

/**
 * A fake bank and a bank client on its first customer's credentials, as a suite's `beforeAll` makes
 * them. `warmUp`: one read first, so the client's socket and token exist before the first test (a
 * test that times the bank's calls does not time the handshake).
 */
export async function startBankWithClient(
  bankOptions: FakeBankOptions,
  clientOptions: BankClientOptions & { warmUp?: boolean },
): Promise<{ bank: FakeBank; client: BankClient }> {
  const { warmUp, ...options } = clientOptions;
  const bank = await startFakeBank(bankOptions);
  const client = pixBankFrom(credentialsOf(bank), options);
  if (warmUp) await client.readCharge("svctxn00000000000000000000");
  return { bank, client };
}

/** Closes what `startBankWithClient` started, the client first (either is missing when the start failed). */
export async function closeBankWithClient(started: {
  bank?: FakeBank | undefined;
  client?: BankClient | null | undefined;
}): Promise<void> {
  await started.client?.close();
  await started.bank?.close();
}
