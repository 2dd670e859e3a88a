import type { TestProject } from "vitest/node";
import { createApiKey } from "../../server/src/domain/accounts.js";
import { chargeBody, startTestServer } from "../../server/test/harness.js";
import { startPrism } from "./prism.js";
import type { Target } from "./targets.js";

/** Fixed, distinct ports: one per target. */
export const ports = { mock: 4610, memory: 4620 } as const;

/**
 * Starts every target once for the whole suite. Adding a target is one entry in `targets`.
 * The reference server is seeded with an account whose test balance has money available, so
 * withdrawals can succeed.
 */
export default async function setup(project: TestProject) {
  const prism = await startPrism({ port: ports.mock, document: "generated/openapi.yaml" });
  const memory = await startTestServer({ port: ports.memory });
  const seeded = await memory.newAccount({ name: "Loja Contrato Ltda" });
  const none = await memory.store.transaction((tx) =>
    createApiKey(
      tx,
      seeded.account,
      { name: "none", livemode: false, permissions: [] },
      memory.clock.now().toISOString(),
    ),
  );
  const charge = await fetch(`${memory.baseUrl}/api/v1/charges/pix`, {
    method: "POST",
    headers: { "x-api-key": seeded.testKey, "content-type": "application/json" },
    body: JSON.stringify(chargeBody({ amountCents: 500_000 })),
  }).then((r) => r.json() as Promise<{ id: string }>);
  await fetch(`${memory.baseUrl}/api/v1/sandbox/transactions/${charge.id}/pay`, {
    method: "POST",
    headers: { "x-api-key": seeded.testKey },
  });
  memory.clock.advance(2 * 86_400);

  const targets: Target[] = [
    {
      name: "mock",
      baseUrl: prism.baseUrl,
      real: false,
      keys: { full: "svc_test_mock", none: "svc_test_mock_none", live: "svc_mock_live" },
    },
    {
      name: "memory",
      baseUrl: memory.baseUrl,
      real: true,
      keys: { full: seeded.testKey, none: none.secret, live: seeded.liveKey as string },
    },
  ];
  project.provide("targets", targets);
  return async () => {
    await prism.stop();
    await memory.close();
  };
}
