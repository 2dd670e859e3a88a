import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { components } from "../../../generated/admin-api.js";
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
