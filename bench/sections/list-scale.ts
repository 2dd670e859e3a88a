import pg from "pg";
import { bodyOf, chargeBody, publicApi, startTestServer } from "../../server/test/harness.js";
import type { TransactionRecord } from "../../server/src/domain/core/model.js";
import { medianLatency } from "../lib/load.js";
import { startOurServer } from "./throughput.js";

/** The first-page queries measured at both sizes: no filter, and each filter. */
const queries = (linkId: string) => ({
  "no filter": "/api/v1/transactions?limit=20",
  "status=PAID": "/api/v1/transactions?limit=20&status=PAID",
  "status=WAITING_PAYMENT": "/api/v1/transactions?limit=20&status=WAITING_PAYMENT",
  "status=EXPIRED": "/api/v1/transactions?limit=20&status=EXPIRED",
  "createdFrom/createdTo":
    "/api/v1/transactions?limit=20&createdFrom=2020-01-01T00%3A00%3A00Z&createdTo=2020-01-02T00%3A00%3A00Z",
  paymentLinkId: `/api/v1/transactions?limit=20&paymentLinkId=${linkId}`,
});

export interface ScaleResult {
  small: number;
  large: number;
  sizes: [number, number];
  latencies: Record<string, [number, number]>;
}

async function firstPages(baseUrl: string, key: string, samples: number) {
  const out: Record<string, number> = {};
  for (const [name, path] of Object.entries(queries("plk_none"))) {
    out[name] = await medianLatency(samples, async () => {
      // Once more on a reset: after the long seeding pause the client may reuse a keep-alive
      // socket the server is closing at that moment (a client-side race, not an answer).
      const get = () => fetch(baseUrl + path, { headers: { "x-api-key": key } });
      const res = await get().catch(get);
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      await res.arrayBuffer();
    });
  }
  return out;
}

/**
 * PostgreSQL: first-page latency with `small` then `large` transactions in one account and mode.
 * Rows are copies of a charge made through the API, half of them paid, spread over a year.
 */
export async function listScalePostgres(databaseUrl: string, small: number, large: number): Promise<ScaleResult> {
  const { server, key, chargeId } = await startOurServer({ DATABASE_URL: databaseUrl });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const seed = async (from: number, to: number) => {
    // Only the columns every version has: later columns take their defaults.
    await client.query(
      `INSERT INTO transactions (id, account_id, livemode, status, amount_cents, fee_cents, description, br_code,
         customer, metadata, expires_at, paid_at, created_at, updated_at)
       SELECT 'txn_bench' || lpad(g::text, 9, '0'), account_id, livemode,
              CASE WHEN g % 2 = 0 THEN 'PAID' ELSE 'WAITING_PAYMENT' END, amount_cents, fee_cents, description,
              br_code, customer, metadata, now() + interval '1 day',
              CASE WHEN g % 2 = 0 THEN created_at - g * interval '30 seconds' END,
              created_at - g * interval '30 seconds', created_at - g * interval '30 seconds'
       FROM transactions t, generate_series($2::int, $3::int) g WHERE t.id = $1`,
      [chargeId, from, to],
    );
    // Vacuumed as well as analysed, as a table in service would be, and flushed to disk: otherwise
    // autovacuum (woken by the bulk insert) and the checkpointer (writing its pages out) work on
    // the same two cores while the first pages are timed, and the first query measured pays for it.
    await client.query("VACUUM (ANALYZE) transactions");
    await client.query("CHECKPOINT");
  };
  try {
    await seed(1, small - 26);
    const atSmall = await firstPages(server.baseUrl, key, 100);
    for (let from = small - 25; from <= large - 26; from += 200_000) {
      await seed(from, Math.min(large - 26, from + 199_999));
    }
    const atLarge = await firstPages(server.baseUrl, key, 100);
    return summarise(atSmall, atLarge, [small, large]);
  } finally {
    await client.end();
    await server.stop();
  }
}

/** Memory: the same, in process, with copies inserted through the store port. */
export async function listScaleMemory(small: number, large: number): Promise<ScaleResult> {
  const server = await startTestServer();
  try {
    const { testKey, account } = await server.newAccount();
    const scope = { accountId: account.id, livemode: false };
    const created = await bodyOf(
      publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/charges/pix", { body: chargeBody() }),
      201,
    );
    const template = (await server.store.read.transactions.get(scope, created.id)) as TransactionRecord;
    const base = new Date(template.createdAt).getTime();
    const seed = async (from: number, to: number) => {
      for (let start = from; start <= to; start += 10_000) {
        await server.store.transaction(async (tx) => {
          for (let g = start; g <= Math.min(to, start + 9_999); g++) {
            const at = new Date(base - g * 30_000).toISOString();
            await tx.transactions.insert({
              ...template,
              id: `txn_bench${String(g).padStart(9, "0")}`,
              status: g % 2 === 0 ? "PAID" : "WAITING_PAYMENT",
              paidAt: g % 2 === 0 ? at : null,
              createdAt: at,
              updatedAt: at,
            });
          }
        });
      }
    };
    await seed(1, small - 1);
    const atSmall = await firstPages(server.baseUrl, testKey, 100);
    await seed(small, large - 1);
    // The seeding's garbage is collected now, not during the first page timed after it.
    (globalThis as { gc?: () => void }).gc?.();
    const atLarge = await firstPages(server.baseUrl, testKey, 100);
    return summarise(atSmall, atLarge, [small, large]);
  } finally {
    await server.close();
  }
}

function summarise(atSmall: Record<string, number>, atLarge: Record<string, number>, sizes: [number, number]) {
  const latencies: Record<string, [number, number]> = {};
  for (const name of Object.keys(atSmall)) latencies[name] = [atSmall[name] ?? NaN, atLarge[name] ?? NaN];
  const worst = Object.values(latencies).reduce((w, [s, l]) => (l / s > w[1] / w[0] ? [s, l] : w), [1, 1]);
  return { small: worst[0], large: worst[1], sizes, latencies };
}
