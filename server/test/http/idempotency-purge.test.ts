import type { Logger } from "pino";
import { describe, expect, test, vi } from "vitest";
import { startIdempotencyPurge } from "../../src/jobs/idempotency-purge.js";
import { chargeBody, expectStatus, publicApi } from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";

// Idempotency records are remembered for 24 hours (docs/decisions/0005-idempotency.md); past that a
// key is new again, so the server process forgets older records in the background, on both stores.

for (const store of eachStore("idempotency_purge")) {
  store.describe(`idempotency purge on the ${store.name} store`, () => {
    const server = serverOn(store);

    const create = (key: string, idempotencyKey: string, amountCents = 8990) =>
      publicApi(server.baseUrl, { key }).POST("/api/v1/charges/pix", {
        params: { header: { "idempotency-key": idempotencyKey } },
        body: chargeBody({ amountCents }),
      });

    test("when one key is past the 24 h window and another within it, then the purge forgets only the old one", async () => {
      const { testKey, account } = await server.newAccount();
      const scope = { accountId: account.id, livemode: false };
      const old = await create(testKey, "pedido-antigo");
      server.clock.advance(23 * 3600);
      const fresh = await create(testKey, "pedido-novo");
      server.clock.advance(3600 + 1);

      const purged = await server.domain.idempotency.purgeExpired();

      expectStatus(old, 201);
      expectStatus(fresh, 201);
      expect(purged).toBeGreaterThanOrEqual(1);
      expect(await server.store.read.idempotency.get(scope, "createPixCharge", "pedido-antigo")).toBeNull();
      expect(await server.store.read.idempotency.get(scope, "createPixCharge", "pedido-novo")).not.toBeNull();
      const replay = await create(testKey, "pedido-novo");
      expectStatus(replay, 201);
      expect(replay.body.id).toBe(fresh.body.id);
      const reused = await create(testKey, "pedido-antigo", 5000);
      expectStatus(reused, 201);
      expect(reused.body.id).not.toBe(old.body.id);
    });

    test("when nothing is past the window, then the purge forgets nothing", async () => {
      const { testKey, account } = await server.newAccount();
      await create(testKey, "pedido-1");
      await server.domain.idempotency.purgeExpired();

      const purged = await server.domain.idempotency.purgeExpired();

      expect(purged).toBe(0);
      const record = await server.store.read.idempotency.get(
        { accountId: account.id, livemode: false },
        "createPixCharge",
        "pedido-1",
      );
      expect(record).not.toBeNull();
    });
  });
}

describe("startIdempotencyPurge", () => {
  const fakeLogger = () => ({ info: vi.fn(), warn: vi.fn() });

  test("when started, then it purges at once and again on every tick", async () => {
    const logger = fakeLogger();
    const purge = vi.fn(async () => 2);

    const runner = startIdempotencyPurge({ purge, logger: logger as unknown as Logger, intervalMs: 10 });
    await vi.waitFor(() => expect(purge.mock.calls.length).toBeGreaterThanOrEqual(3));
    await runner.stop();

    expect(logger.info).toHaveBeenCalledWith({ purged: 2 }, expect.any(String));
  });

  test("when a run fails, then it is logged and the next tick runs again", async () => {
    const logger = fakeLogger();
    const purge = vi
      .fn<() => Promise<number>>()
      .mockRejectedValueOnce(new Error("connection terminated"))
      .mockResolvedValue(0);

    const runner = startIdempotencyPurge({ purge, logger: logger as unknown as Logger, intervalMs: 10 });
    await vi.waitFor(() => expect(purge.mock.calls.length).toBeGreaterThanOrEqual(2));
    await runner.stop();

    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  test("when stopped during a run, then stop waits for it and no tick follows", async () => {
    let finish: (n: number) => void = () => undefined;
    const purge = vi.fn(() => new Promise<number>((resolve) => (finish = resolve)));
    const runner = startIdempotencyPurge({ purge, logger: fakeLogger() as unknown as Logger, intervalMs: 5 });

    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    const stoppedBeforeRunEnded = stopped;
    finish(0);
    await stopping;
    await new Promise((resolve) => setTimeout(resolve, 30));

    expect(stoppedBeforeRunEnded).toBe(false);
    expect(stopped).toBe(true);
    expect(purge).toHaveBeenCalledTimes(1);
  });
});
