import { execFileSync } from "node:child_process";
import type { TransactionRecord } from "../../server/src/domain/core/model.js";
import { presentTransaction } from "../../server/src/domain/payments/index.js";
import { jsonText } from "../../server/src/http/json.js";
import { MemoryStore } from "../../server/src/store/memory/index.js";
import { bodyOf, chargeBody, publicApi, startTestServer } from "../../server/test/harness.js";

/** `bytesPerStoredCharge` in a child process of its own (see memory-footprint-child.ts). */
export function bytesPerStoredChargeInChild(count = 20_000): { stored: number; read: number } {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", "bench/sections/memory-footprint-child.ts", String(count)],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 300_000 },
  );
  return JSON.parse(out) as { stored: number; read: number };
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * Heap bytes per charge kept by the memory store (needs `node --expose-gc`; NaN without it): as
 * stored, and once every charge has been read through the API's path (its shared view and JSON
 * are then kept with it).
 */
export async function bytesPerStoredCharge(count = 20_000): Promise<{ stored: number; read: number }> {
  if (!(globalThis as { gc?: unknown }).gc) return { stored: NaN, read: NaN };
  const server = await startTestServer();
  let template: TransactionRecord;
  try {
    const { testKey, account } = await server.newAccount();
    const created = await bodyOf(
      publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/charges/pix", { body: chargeBody() }),
      201,
    );
    template = (await server.store.read.transactions.get(
      { accountId: account.id, livemode: false },
      created.id,
    )) as TransactionRecord;
  } finally {
    await server.close();
  }
  const store = new MemoryStore();
  gc();
  const before = process.memoryUsage().heapUsed;
  await store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      // Every charge its own strings, as charges made through the API have.
      await tx.transactions.insert({
        ...structuredClone(template),
        id: `txn_mem${String(i).padStart(12, "0")}`,
        description: `Pedido ${i} — camiseta`,
      });
    }
  });
  gc();
  const stored = process.memoryUsage().heapUsed;
  const scope = { accountId: template.accountId, livemode: template.livemode };
  const now = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const row = await store.read.transactions.get(scope, `txn_mem${String(i).padStart(12, "0")}`);
    if (row) jsonText(presentTransaction(row, now));
  }
  gc();
  const read = process.memoryUsage().heapUsed;
  await store.close();
  return { stored: (stored - before) / count, read: (read - before) / count };
}
