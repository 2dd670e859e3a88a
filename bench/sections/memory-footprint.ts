import type { TransactionRecord } from "../../server/src/domain/model.js";
import { MemoryStore } from "../../server/src/store/memory.js";
import { call, chargeBody, startTestServer } from "../../server/test/harness.js";

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Heap bytes per charge kept by the memory store (needs `node --expose-gc`; NaN without it). */
export async function bytesPerStoredCharge(count = 20_000): Promise<number> {
  if (!(globalThis as { gc?: unknown }).gc) return NaN;
  const server = await startTestServer();
  let template: TransactionRecord;
  try {
    const { testKey, account } = await server.newAccount();
    const created = await call(server.baseUrl, "POST", "/api/v1/charges/pix", { key: testKey, body: chargeBody() });
    template = (await server.store.read.transactions.get(
      { accountId: account.id, livemode: false },
      created.body.id,
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
  const bytes = (process.memoryUsage().heapUsed - before) / count;
  await store.close();
  return bytes;
}
