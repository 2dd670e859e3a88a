import type { AddressInfo } from "node:net";
import type { RateLimitStore } from "../src/http/kit/rate-limit.js";
import { type Logger, pino } from "pino";
import {
  allPermissions,
  createAccount,
  createApiKey,
  type NewAccount,
  type NewApiKey,
} from "../src/domain/accounts/index.js";
import { ManualClock } from "../src/domain/ports/clock.js";
import { type BankAccess, defaultDomainConfig, type DomainDeps, type PasswordHashCost } from "../src/domain/deps.js";
import type { Mailer } from "../src/domain/ports/mailer.js";
import type { Account } from "../src/domain/core/model.js";
import { createDomain, type Domain } from "../src/domain/service.js";
import { createApp } from "../src/http/app.js";
import { appServer } from "../src/http/kit/app-server.js";
import type { RateLimits } from "../src/domain/core/rate-limits.js";
import { MemoryStore } from "../src/store/memory/index.js";
import { registrationGuard } from "../src/webhooks/guard.js";
import type { UrlGuard } from "../src/domain/webhooks/index.js";
import { type Keyring, developmentKeyring } from "../src/domain/core/secrets.js";
import type { Store } from "../src/domain/ports/store.js";
import { TestRequest, testFetch } from "./support/transport.js";

export { chargeBody, chargePayer } from "./support/fixtures.js";
export { type Answer, bodyOf, byId, type ErrorBody, expectStatus, operatorApi, publicApi } from "./support/client.js";

export interface CallResult<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestServer {
  baseUrl: string;
  store: Store;
  clock: ManualClock;
  domain: Domain;
  /** What the domain was built with (tests that insert records the way a use case would). */
  deps: DomainDeps;
  mail: { to: string; subject: string; text: string }[];
  /** An account with a test key holding every permission (and a production key when verified). */
  newAccount(options?: Partial<NewAccount>): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface TestAccount {
  account: Account;
  testKey: string;
  liveKey: string | null;
  /** Another key for this account. */
  addKey(input: Partial<NewApiKey>): Promise<{ id: string; secret: string }>;
}

/** A ManualClock that follows real time: for the bench and tests of real polling workers. */
export class RealTimeClock extends ManualClock {
  constructor() {
    super(new Date());
  }
  override now(): Date {
    return new Date();
  }
}

/** The operator API token of test servers. */
export const testAdminToken = "adm_test_token_0123456789";

/**
 * Untyped JSON over real HTTP: only for a request a test breaks on purpose, which the typed clients
 * (`publicApi`, `operatorApi`) cannot express (a body the document refuses, a raw text, a path or
 * header outside the document). Everything else goes through the typed clients.
 */
export async function rawCall<T = unknown>(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; admin?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers["x-api-key"] = options.key;
  if (options.admin) headers.authorization = `Bearer ${options.admin}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await testFetch(new TestRequest(`${baseUrl}${path}`, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: leave as text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** A reference server on a random 127.0.0.1 port, memory store, manual clock. */
export async function startTestServer(
  options: {
    rateLimits?: RateLimits | "off";
    /** Shared rate-limit counters (the PostgreSQL store's); default: each limiter in memory. */
    rateLimitStore?: (name: string) => RateLimitStore;
    store?: Store;
    trustProxy?: number | boolean | string[];
    clock?: ManualClock;
    /** PIX_ALLOW_LOCAL_WEBHOOKS: test-mode endpoints may be on loopback. */
    allowLocalWebhooks?: boolean;
    /**
     * The check of a webhook endpoint's URL at registration; default: the server's
     * (`registrationGuard`, which resolves the name). A test whose examples name a domain this
     * machine cannot resolve stands in for the resolution here, not by replacing node:dns.
     */
    webhookUrlGuard?: UrlGuard;
    /** The operator token; default `testAdminToken`; "" turns the operator API off. */
    adminToken?: string;
    /** A fixed port (contract tests); default: a random one. */
    port?: number;
    /** PUBLIC_BASE_URL; default https://pix.example.test. */
    publicBaseUrl?: string;
    /** Another mailer (the SMTP adapter's test); default: one that keeps each message in `mail`. */
    mailer?: Mailer;
    /** The built dashboard web app to serve at /painel (the browser tests build one). */
    panelDirectory?: string;
    /** The built documentation site to serve at /docs (the docs test builds one). */
    docsDirectory?: string | null;
    /** The server's logger (a test reading the log lines); default: silent, or TEST_LOG_LEVEL. */
    logger?: Logger;
    /**
     * PIX_PASSWORD_HASH_COST; default `minimal`: argon2id at OWASP's cost would spend about 16 ms
     * of CPU on every sign-up and log-in (passwords.test.ts holds the production parameters).
     */
    passwordHashCost?: PasswordHashCost;
    /** MASTER_KEYS's keyring; default: the development key. */
    secrets?: Keyring;
    /** The platform's bank (a test double, server/test/support/pix-bank-double.ts); default: none. */
    bank?: BankAccess;
    /** The request logs' buffer (a small one shows its overflow); default: the server's. */
    requestLogBuffer?: { capacity: number; batchSize: number };
  } = {},
): Promise<TestServer> {
  const store = options.store ?? new MemoryStore();
  const clock = options.clock ?? new ManualClock("2026-10-04T15:30:00.000Z");
  const mail: TestServer["mail"] = [];
  const mailer: Mailer = options.mailer ?? {
    async send(message) {
      mail.push(message);
    },
  };
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const deps: DomainDeps = {
    store,
    clock,
    config: {
      ...defaultDomainConfig,
      publicBaseUrl: options.publicBaseUrl ?? "https://pix.example.test",
      passwordHashCost: options.passwordHashCost ?? "minimal",
      ...(options.requestLogBuffer ? { requestLogBuffer: options.requestLogBuffer } : {}),
    },
    mailer,
    logger,
    secrets: options.secrets ?? developmentKeyring(),
    ...(options.bank ? { bank: options.bank } : {}),
  };
  const domain = createDomain(deps, {
    webhookUrlGuard: options.webhookUrlGuard ?? registrationGuard(options.allowLocalWebhooks ?? false),
  });
  const app = createApp({
    domain,
    logger,
    publicBaseUrl: deps.config.publicBaseUrl,
    admin: {
      token: options.adminToken === undefined ? testAdminToken : options.adminToken || undefined,
      manualClock: clock,
    },
    rateLimits: options.rateLimits ?? "off",
    ...(options.rateLimitStore ? { rateLimitStore: options.rateLimitStore } : {}),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    ...(options.panelDirectory !== undefined ? { panelDirectory: options.panelDirectory } : {}),
    ...(options.docsDirectory !== undefined ? { docsDirectory: options.docsDirectory } : {}),
  });
  // The server as main.ts makes it (http/kit/app-server.ts).
  const server = appServer(app).listen(options.port ?? 0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    store,
    clock,
    domain,
    deps,
    mail,
    async newAccount(input = {}) {
      const now = clock.now().toISOString();
      return store.transaction(async (tx) => {
        const account = await createAccount(
          tx,
          { name: "Loja Exemplo Ltda", ownerEmail: "dono@loja.example", verified: true, ...input },
          now,
        );
        const test = await createApiKey(
          tx,
          account,
          { name: "test", livemode: false, permissions: [...allPermissions] },
          now,
        );
        const live = account.verified
          ? await createApiKey(tx, account, { name: "live", livemode: true, permissions: [...allPermissions] }, now)
          : null;
        return {
          account,
          testKey: test.secret,
          liveKey: live?.secret ?? null,
          addKey: async (key: Partial<NewApiKey>) =>
            store.transaction(async (tx2) => {
              const created = await createApiKey(
                tx2,
                account,
                { name: "extra", livemode: false, ...key },
                clock.now().toISOString(),
              );
              return { id: created.key.id, secret: created.secret };
            }),
        };
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
