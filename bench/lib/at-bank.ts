/**
 * What the bench's sections against the fake bank share (bank-child.ts, withdrawals-child.ts): the
 * built server started as deployed with its callback listener, the operator's connection to the
 * bank made through the operator API, and clients spread behind one proxy hop.
 */
import { randomBytes } from "node:crypto";
import type { FakeBank } from "../../fake-bank/src/bank.js";
import { freePort } from "../../scripts/pg-cluster.js";
import { connectionBodyOf } from "../../server/test/support/fake-bank-credentials.js";
import { type Running, startNode } from "./process.js";
import { serverArgs } from "./server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answer's JSON when its status is `expected`; else an error naming `what`, the status and the body. */
export async function json(
  res: Response,
  expected: number,
  what: string,
): Promise<Record<string, unknown> & { id: string }> {
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${what}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown> & { id: string };
}

export interface ServerAtBank {
  server: Running;
  /** A request to the operator API (`/admin/v1` + `path`) with the operator's token. */
  admin: (method: string, path: string, body?: unknown) => Promise<Response>;
}

/**
 * Starts the server as deployed (`NODE_ENV=production`, one trusted proxy hop, rate limits on,
 * `LOG_LEVEL=warn`) with its callback listener on a free port, then connects `bank` as the operator
 * does (`PUT /admin/v1/bank-connection`, its first customer's credentials) and waits until the
 * server registered its webhook there. The server is `serverArgs()` (the run's build); `flags`
 * are node flags beside `npm start`'s (`--cpu-prof` to profile it). The server is stopped if the
 * connection fails.
 */
export async function startServerAtBank(options: {
  bank: FakeBank;
  dialect: "standard" | "efi";
  adminToken: string;
  files: { listenerCert: string; listenerKey: string };
  databaseUrl?: string | undefined;
  flags?: string | undefined;
  env?: Record<string, string>;
}): Promise<ServerAtBank> {
  const { bank, adminToken } = options;
  const listenerPort = await freePort();
  const flags = (options.flags ?? "").split(" ").filter(Boolean);
  const server = await startNode([...flags, ...serverArgs()], {
    port: await freePort(),
    env: {
      NODE_ENV: "production",
      TRUST_PROXY: "1",
      ADMIN_TOKEN: adminToken,
      PUBLIC_BASE_URL: "https://pix.bench.example",
      MASTER_KEYS: `bench:${randomBytes(32).toString("base64")}`,
      LOG_LEVEL: "warn",
      PIX_BANK_WEBHOOK_PORT: String(listenerPort),
      PIX_BANK_WEBHOOK_CERT_FILE: options.files.listenerCert,
      PIX_BANK_WEBHOOK_KEY_FILE: options.files.listenerKey,
      ...options.env,
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    },
  });
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${server.baseUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  try {
    await json(
      await admin(
        "PUT",
        "/bank-connection",
        connectionBodyOf(bank, { dialect: options.dialect, webhookUrl: `https://127.0.0.1:${listenerPort}/banco` }),
      ),
      200,
      "bank connection",
    );
    const health = async () =>
      ((await (await admin("GET", "/bank-connection")).json()) as { health: Record<string, string | null> }).health;
    for (let waited = 0; !(await health()).webhookRegisteredAt; waited += 100) {
      if (waited > 30_000) throw new Error(`webhook not registered at the bank: ${JSON.stringify(await health())}`);
      await sleep(100);
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { server, admin };
}
