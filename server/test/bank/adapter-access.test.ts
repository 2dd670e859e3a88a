import { describe, expect, test } from "vitest";
import { bankAccess } from "../../src/bank/access.js";
import type { BankClient } from "../../src/bank/client.js";
import type { BankCredentials } from "../../src/domain/bank/index.js";

const credentials = (version: number): BankCredentials => ({
  version,
  baseUrl: "https://banco.invalid/api/v2",
  tokenUrl: "https://banco.invalid/oauth/token",
  clientId: "cliente",
  clientSecret: "segredo",
  certificate: { format: "pem", certPem: "", keyPem: "" },
  bankCaPem: null,
  pixKey: "chave",
  dialect: "standard",
  webhookUrl: null,
  certificateNotAfter: "2030-01-01T00:00:00.000Z",
  payoutLimitCents: 1_500_000,
});

/** Clients that remember their version and whether they were closed. */
function builder() {
  const built: { version: number; closed: boolean }[] = [];
  const build = (c: BankCredentials) => {
    const record = { version: c.version, closed: false };
    built.push(record);
    return {
      version: c.version,
      close: () => {
        record.closed = true;
        return Promise.resolve();
      },
    } as unknown as BankClient;
  };
  return { built, build };
}

describe("BankAccess", () => {
  test("when the connection keeps its version, then one client serves every call and the store is asked once per recheck", async () => {
    let now = 0;
    let loads = 0;
    const { built, build } = builder();
    const access = bankAccess({
      load: () => {
        loads += 1;
        return Promise.resolve(credentials(1));
      },
      build,
      now: () => now,
      recheckMs: 1000,
    });
    const clients = await Promise.all(Array.from({ length: 10 }, () => access.current()));
    expect(new Set(clients).size).toBe(1);
    expect(loads).toBe(1);
    now = 1500;
    expect(await access.current()).toBe(clients[0]);
    expect(await access.current()).toBe(clients[0]);
    expect(loads).toBe(2);
    expect(built).toEqual([{ version: 1, closed: false }]);
  });

  test("when the connection is removed and set again between two reads, its version 1 again, then the new bank's client is built", async () => {
    let now = 0;
    let current = credentials(1);
    const built: string[] = [];
    const access = bankAccess({
      load: () => Promise.resolve(current),
      build: (c) => {
        built.push(c.baseUrl);
        return { close: () => Promise.resolve() } as unknown as BankClient;
      },
      now: () => now,
      recheckMs: 1000,
    });
    await access.current();
    current = { ...credentials(1), baseUrl: "https://outro-banco.invalid/api/v2" };
    now = 1500;
    await access.current(); // the due re-read runs in the background
    await access.refresh();
    expect(built).toEqual(["https://banco.invalid/api/v2", "https://outro-banco.invalid/api/v2"]);
  });

  test("when the operator changes the connection, then a new client is built, the old one closed and the change told", async () => {
    let now = 0;
    let version = 1;
    const changes: (number | null)[] = [];
    const { built, build } = builder();
    const access = bankAccess({
      load: () => Promise.resolve(version === 0 ? null : credentials(version)),
      build,
      now: () => now,
      recheckMs: 1000,
      onChange: ({ credentials: c }) => changes.push(c?.version ?? null),
    });
    const first = await access.current();
    version = 2;
    now = 2000;
    // The re-read runs in the background: this call answers the client held, the next one the new.
    expect(await access.current()).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    const second = await access.current();
    expect(second).not.toBe(first);
    expect(built).toEqual([
      { version: 1, closed: true },
      { version: 2, closed: false },
    ]);
    version = 0;
    now = 4000;
    expect(await access.refresh()).toBeNull();
    expect(await access.current()).toBeNull();
    expect(built[1]?.closed).toBe(true);
    expect(changes).toEqual([1, 2, null]);
  });

  test("when no connection is configured, then current() answers null, builds nothing and tells it once", async () => {
    let now = 0;
    const changes: unknown[] = [];
    const { built, build } = builder();
    const access = bankAccess({
      load: () => Promise.resolve(null),
      build,
      now: () => now,
      recheckMs: 1000,
      onChange: ({ credentials: c }) => changes.push(c),
    });
    expect(await access.current()).toBeNull();
    now = 2000;
    expect(await access.refresh()).toBeNull();
    expect(built).toEqual([]);
    expect(changes).toEqual([null]);
  });
});

test("when a re-read fails, then the client held keeps serving and the failure is told", async () => {
  let now = 0;
  let fail = false;
  const errors: unknown[] = [];
  const { build } = builder();
  const access = bankAccess({
    load: () => (fail ? Promise.reject(new Error("banco de dados fora")) : Promise.resolve(credentials(1))),
    build,
    now: () => now,
    recheckMs: 1000,
    onLoadError: (error) => errors.push(error),
  });
  const first = await access.current();
  fail = true;
  now = 2000;
  expect(await access.current()).toBe(first);
  await new Promise((resolve) => setImmediate(resolve));
  expect(await access.current()).toBe(first);
  expect(errors.length).toBeGreaterThanOrEqual(1);
});
