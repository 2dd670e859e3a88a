import type { components } from "../../../generated/api.js";

// The test data every suite shares (component tests, the fuzzer, the contract tests): written once
// here, each test overriding only what it is about.

export type CreatePixChargeRequest = components["schemas"]["CreatePixChargeRequest"];

/** The payer of `chargeBody`: a valid CPF, e-mail and phone. */
export const chargePayer = {
  name: "Maria da Silva Santos",
  email: "maria.santos@example.com.br",
  phone: "11987654321",
  documentType: "CPF",
  document: "52998224725",
} as const satisfies CreatePixChargeRequest["customer"];

/** What `chargeBody(overrides)` builds: a `CreatePixChargeRequest` when the overrides are valid. */
type ChargeBody<O> =
  O extends Partial<CreatePixChargeRequest> ? CreatePixChargeRequest : Omit<CreatePixChargeRequest, keyof O> & O;

/**
 * A valid charge body (`POST /api/v1/charges/pix`); override what a test is about. The type says
 * what was built: a body with valid overrides is a `CreatePixChargeRequest`, one a test breaks on
 * purpose is not, and only the untyped `rawCall` sends it.
 */
export function chargeBody<const O extends object = Record<never, never>>(overrides: O = {} as O): ChargeBody<O> {
  const valid: CreatePixChargeRequest = {
    amountCents: 8990,
    description: "Pedido #1234 - Camiseta azul",
    customer: { ...chargePayer },
    metadata: { orderId: "1234" },
  };
  return { ...valid, ...overrides } as ChargeBody<O>;
}
