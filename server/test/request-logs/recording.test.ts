import { pino } from "pino";
import { describe, expect, test } from "vitest";
import { defaultDomainConfig } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import type { Store } from "../../src/domain/ports/store.js";
import { type RequestCapture, requestLogUseCases } from "../../src/domain/request-logs/index.js";
import { MemoryStore } from "../../src/store/memory/index.js";

// The request logs' buffer without a server: a store that fails a batch costs a log line, never a
// throw; a full buffer drops and says how many once.

const actor = {
  scope: { accountId: "acc_1", livemode: false },
  account: {},
  apiKey: { id: "key_1", name: "Loja", prefix: "svc_test_AbCd" },
} as unknown as Extract<RequestCapture["caller"], { actor: unknown }>["actor"];

const capture = (): RequestCapture => ({
  caller: { actor },
  method: "GET",
  path: "/api/v1/balance",
  route: "/api/v1/balance",
  query: undefined,
  status: 200,
  durationMs: 2,
  requestId: "req-1",
  requestBody: undefined,
  responseText: '{"availableCents":0}',
});

function logsOn(store: Store, buffer = { capacity: 5, batchSize: 100 }) {
  const lines: { level: number; msg: string; dropped?: number; lost?: number }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const logs = requestLogUseCases(
    { store, clock: new ManualClock(), logger, config: { ...defaultDomainConfig, requestLogBuffer: buffer } },
    { recall: () => null },
  );
  return { logs, lines };
}

describe("the request logs' buffer", () => {
  test("when the store fails a batch, then the flush resolves and logs what was lost", async () => {
    const memory = new MemoryStore();
    const failing = {
      ...memory,
      requestLogs: { ...memory.requestLogs, appendMany: () => Promise.reject(new Error("database away")) },
    } as unknown as Store;
    const { logs, lines } = logsOn(failing);
    logs.record(capture());
    logs.record(capture());
    await expect(logs.flush()).resolves.toBeUndefined();
    expect(lines).toEqual([expect.objectContaining({ msg: "request logs not written", lost: 2 })]);
  });

  test("when more requests come than the buffer holds, then the rest are dropped and counted once", async () => {
    const memory = new MemoryStore();
    const { logs, lines } = logsOn(memory);
    for (let i = 0; i < 8; i++) logs.record(capture());
    await logs.flush();
    const kept = await memory.requestLogs.listPage(
      actor.scope,
      { limit: 100, startingAfter: undefined },
      { since: "2000-01-01T00:00:00.000Z" },
    );
    expect(kept.items).toHaveLength(5);
    expect(lines).toEqual([expect.objectContaining({ msg: "request logs dropped: the buffer was full", dropped: 3 })]);
    await logs.flush();
    expect(lines).toHaveLength(1);
  });

  test("when a success and a failure answer 10 KiB each, then the success keeps its first 2 KiB and the failure all of it", async () => {
    const memory = new MemoryStore();
    const { logs } = logsOn(memory);
    const answer = JSON.stringify({
      data: Array.from({ length: 100 }, (_, n) => ({ id: `txn_${n}`, note: "x".repeat(80) })),
    });
    logs.record({ ...capture(), responseText: answer });
    logs.record({ ...capture(), status: 400, responseText: answer });
    await logs.flush();
    const page = await memory.requestLogs.listPage(
      actor.scope,
      { limit: 10, startingAfter: undefined },
      { since: "2000-01-01T00:00:00.000Z" },
    );
    const [failure, success] = await Promise.all(
      page.items.map((e) => memory.requestLogs.get(actor.scope, e.id, "2000-01-01T00:00:00.000Z")),
    );
    expect(failure?.status).toBe(400);
    expect(failure?.responseBody).toBe(answer);
    expect(failure?.responseBodyTruncated).toBe(false);
    expect(success?.responseBodyTruncated).toBe(true);
    expect(success?.responseBody?.length).toBeLessThanOrEqual(2048);
    expect(answer.startsWith(success?.responseBody ?? "-")).toBe(true);
  });
});
