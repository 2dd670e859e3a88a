import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../src/domain/ports/store.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { startTestServer, type TestServer } from "../harness.js";
import { dashboardUser, memberOf, storedCharges } from "../support/merchant.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { eachStore } from "../support/stores.js";

// Two CSV exports at once per user (issue 33 §12, docs/decisions/0046-csv-exports-two-at-once-per-user.md),
// through the real HTTP stack on both stores, and across two server processes on one PostgreSQL
// database. An export is held open mid-file by a page read that waits: the store under the server
// is the real one, whose transaction list waits, for a page after the first, until the test opens
// that export's gate (each held export has its own `createdFrom`, the gate's name), as a slow
// database or a slow client would keep it. The file's first page has already reached the client.

/** The gates of the page reads after the first, by the export's `createdFrom`; unnamed reads pass. */
class Gates {
  private readonly opened = new Map<string, () => void>();
  private readonly waiting = new Map<string, Promise<void>>();
  /** Pages read after the first, per gate. */
  readonly pagesRead = new Map<string, number>();

  async pass(name: string): Promise<void> {
    this.pagesRead.set(name, (this.pagesRead.get(name) ?? 0) + 1);
    await this.gate(name);
  }

  open(name: string): void {
    this.gate(name);
    this.opened.get(name)?.();
  }

  private gate(name: string): Promise<void> {
    let gate = this.waiting.get(name);
    if (!gate) {
      gate = new Promise<void>((resolve) => this.opened.set(name, resolve));
      this.waiting.set(name, gate);
    }
    return gate;
  }
}

/** Exports from these instants fail: at their first page, or at their second. */
const failFirst = "2025-01-01T00:00:00.000Z";
const failLater = "2025-01-02T00:00:00.000Z";

/** `store`, whose transaction list waits at `gates` for each page after the first of a `createdFrom` export. */
function gatedStore(store: Store, gates: Gates): Store {
  const transactions = store.read.transactions;
  return {
    transaction: (work) => store.transaction(work),
    ping: () => store.ping(),
    close: () => store.close(),
    recordKeyUse: (keyId, at) => store.recordKeyUse(keyId, at),
    exportLeases: store.exportLeases,
    requestLogs: store.requestLogs,
    read: {
      ...store.read,
      transactions: {
        ...transactions,
        list: async (scope, filter, page) => {
          const later = page.startingAfter !== undefined;
          if (filter.createdFrom === (later ? failLater : failFirst)) throw new Error("disco cheio (falha de teste)");
          if (later && filter.createdFrom !== undefined) await gates.pass(filter.createdFrom);
          return transactions.list(scope, filter, page);
        },
      },
    },
  };
}

/** Charges over five pages of an export (100 a page). */
const chargeCount = 450;
const withdrawalsCsv = "/dashboard/v1/modes/test/withdrawals.csv";
let holds = 0;

interface HeldExport {
  /** The gate it waits at. */
  gate: string;
  status: number;
  /** Hangs up mid-file. */
  hangUp(): void;
  /** The rest of the file, once its gate is open. */
  rest(): Promise<string>;
}

/** Starts a transaction export of its own gate and reads its first page; its second waits at the gate. */
async function holdExport(server: TestServer, cookie: string): Promise<HeldExport> {
  holds++;
  const gate = new Date(Date.UTC(2026, 0, 1, 0, 0, holds)).toISOString();
  const hangUp = new AbortController();
  const answer = await fetch(`${server.baseUrl}/dashboard/v1/modes/test/transactions.csv?createdFrom=${gate}`, {
    headers: { cookie: `__Host-pix_session=${cookie}` },
    signal: hangUp.signal,
  });
  const reader = answer.body?.getReader();
  if (!reader) throw new Error("an export without a body");
  const first = await reader.read();
  let text = new TextDecoder().decode(first.value);
  return {
    gate,
    status: answer.status,
    hangUp: () => hangUp.abort(),
    async rest() {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        text += new TextDecoder().decode(next.value);
      }
      return text;
    },
  };
}

/** A whole export, read as a browser downloads it: its status, Retry-After and (JSON) code. */
async function download(server: TestServer, cookie: string, path: string) {
  const answer = await fetch(`${server.baseUrl}${path}`, { headers: { cookie: `__Host-pix_session=${cookie}` } });
  const text = await answer.text();
  return {
    status: answer.status,
    retryAfter: answer.headers.get("retry-after"),
    code: answer.status === 200 ? null : (JSON.parse(text) as { code: string }).code,
  };
}

/** A merchant whose account has `chargeCount` test charges, and a second user of the account. */
async function merchantWithCharges(server: TestServer) {
  const owner = await dashboardUser(server);
  await storedCharges(server, owner.accountId, chargeCount);
  const colleague = await memberOf(server, owner.accountId, "finance");
  if (!owner.browser.cookie || !colleague.browser.cookie) throw new Error("a user without a session");
  return { owner: owner.browser.cookie, colleague: colleague.browser.cookie };
}

for (const store of eachStore("dashboard_export_slots")) {
  store.describe(`two CSV exports at once per user on the ${store.name} store`, { timeout: 90_000 }, () => {
    const gates = new Gates();
    let server: TestServer;
    let database: TestDatabase | undefined;
    beforeAll(async () => {
      let underlying: Store = new MemoryStore();
      if (store.name === "PostgreSQL") {
        database = await createTestDatabase("dashboard_export_slots");
        underlying = new PostgresStore(createPool(database.url, { max: 5 }));
      }
      server = await startTestServer({ store: gatedStore(underlying, gates) });
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await server?.store.close();
      await database?.drop();
    });

    test("when a user has two exports under way, then a third (of either kind) answers 429 with Retry-After, and another user of the account exports", async () => {
      const { owner, colleague } = await merchantWithCharges(server);
      const held = [await holdExport(server, owner), await holdExport(server, owner)];

      const third = await download(server, owner, withdrawalsCsv);
      const fourth = await download(server, owner, "/dashboard/v1/modes/production/transactions.csv");
      const colleagues = await download(server, colleague, withdrawalsCsv);

      expect(held.map((h) => h.status)).toEqual([200, 200]);
      expect(third).toEqual({ status: 429, retryAfter: "10", code: "RATE_LIMITED" });
      expect(fourth).toEqual({ status: 429, retryAfter: "10", code: "RATE_LIMITED" });
      expect(colleagues.status).toBe(200);
      for (const h of held) {
        h.hangUp();
        gates.open(h.gate);
      }
    });

    test("when one of the two exports ends with its last row, then a new one passes", async () => {
      const { owner } = await merchantWithCharges(server);
      const [first, second] = [await holdExport(server, owner), await holdExport(server, owner)];
      expect((await download(server, owner, withdrawalsCsv)).status).toBe(429);

      gates.open(first.gate);
      const file = await first.rest();
      const after = await download(server, owner, withdrawalsCsv);

      expect(file.trimEnd().split("\r\n")).toHaveLength(1 + chargeCount);
      expect(after.status).toBe(200);
      second.hangUp();
      gates.open(second.gate);
    });

    test("when the client hangs up mid-file, then its slot is given back without the rest of the file being read", async () => {
      const { owner } = await merchantWithCharges(server);
      const [first, second] = [await holdExport(server, owner), await holdExport(server, owner)];
      expect((await download(server, owner, withdrawalsCsv)).status).toBe(429);

      first.hangUp();
      gates.open(first.gate);

      await expect.poll(async () => (await download(server, owner, withdrawalsCsv)).status).toBe(200);
      expect(gates.pagesRead.get(first.gate)).toBeLessThan(4);
      second.hangUp();
      gates.open(second.gate);
    });

    test("when page reads fail, at the first page or mid-file, then each export gives its slot back", async () => {
      const { owner } = await merchantWithCharges(server);
      const csv = (from: string) => `/dashboard/v1/modes/test/transactions.csv?createdFrom=${from}`;
      const cookie = { cookie: `__Host-pix_session=${owner}` };

      const atFirst: number[] = [];
      for (const _ of [1, 2, 3]) atFirst.push((await download(server, owner, csv(failFirst))).status);
      const midFile: boolean[] = [];
      for (const _ of [1, 2, 3]) {
        const answer = await fetch(`${server.baseUrl}${csv(failLater)}`, { headers: cookie });
        midFile.push(
          await answer.text().then(
            () => true,
            () => false,
          ),
        );
      }
      const after = [await holdExport(server, owner), await holdExport(server, owner)];

      expect(atFirst).toEqual([500, 500, 500]);
      expect(midFile).toEqual([false, false, false]);
      expect(after.map((h) => h.status)).toEqual([200, 200]);
      expect((await download(server, owner, withdrawalsCsv)).status).toBe(429);
      for (const h of after) {
        h.hangUp();
        gates.open(h.gate);
      }
    });

    test("when an export's slot is not given back (its process died), then it frees itself five minutes after its last page was read", async () => {
      const { owner } = await merchantWithCharges(server);
      const held = [await holdExport(server, owner), await holdExport(server, owner)];
      expect(held.map((h) => h.status)).toEqual([200, 200]);

      server.clock.advance(299);
      const before = await download(server, owner, withdrawalsCsv);
      server.clock.advance(2);
      const after = await download(server, owner, withdrawalsCsv);

      expect(before.status).toBe(429);
      expect(after.status).toBe(200);
      for (const h of held) {
        h.hangUp();
        gates.open(h.gate);
      }
    });
  });
}

describePg("two CSV exports at once per user across two server processes on one PostgreSQL database", () => {
  const gates = new Gates();
  let database: TestDatabase;
  let servers: TestServer[] = [];
  beforeAll(async () => {
    database = await createTestDatabase("dashboard_export_slots_shared");
    servers = [
      await startTestServer({ store: gatedStore(new PostgresStore(createPool(database.url, { max: 5 })), gates) }),
      await startTestServer({ store: gatedStore(new PostgresStore(createPool(database.url, { max: 5 })), gates) }),
    ];
  }, 60_000);
  afterAll(async () => {
    for (const server of servers) {
      await server.close();
      await server.store.close();
    }
    await database?.drop();
  });

  test("when a user's two exports are under way on two processes, then each process refuses a third with 429, and takes one once a slot is free", async () => {
    const [one, two] = servers as [TestServer, TestServer];
    const { owner } = await merchantWithCharges(one);
    const first = await holdExport(one, owner);
    const second = await holdExport(two, owner);

    const refusedThere = await download(two, owner, withdrawalsCsv);
    const refusedHere = await download(one, owner, withdrawalsCsv);
    first.hangUp();
    gates.open(first.gate);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(refusedThere).toEqual({ status: 429, retryAfter: "10", code: "RATE_LIMITED" });
    expect(refusedHere.status).toBe(429);
    await expect.poll(async () => (await download(two, owner, withdrawalsCsv)).status).toBe(200);
    second.hangUp();
    gates.open(second.gate);
  }, 90_000);
});
