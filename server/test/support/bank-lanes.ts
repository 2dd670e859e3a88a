// What the fault tests against real server processes and the fake bank share (faults-*.test.ts):
// a lane is a fake bank, a database (PostgreSQL) and server processes of its own, connected by the
// operator, with the callback listener of each process up and registered at the bank. A lane's
// scenarios run one after another; lanes run side by side (`describe(..., { concurrent: true })`),
// since a fault is the bank's (or a process's) for everyone connected to it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect } from "vitest";
import type { CertificateAuthority, IssuedCertificate } from "../../../fake-bank/src/certs.js";
import { startFakeBank, type FakeBank, type FakeBankOptions } from "../../../fake-bank/src/bank.js";
import type { components as AdminComponents } from "../../../generated/admin-api.js";
import type { components } from "../../../generated/api.js";
import { freePort } from "../../../scripts/pg-cluster.js";
import { bodyOf, byId, chargeBody, operatorApi, publicApi } from "../harness.js";
import { connectionBodyOf } from "./fake-bank-credentials.js";
import { listenerCertificateAuthority } from "./listener-ca.js";
import { createTestDatabase, type TestDatabase } from "./pg.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

export { freePort };

type Transaction = components["schemas"]["Transaction"];
type Permission = AdminComponents["schemas"]["Permission"];

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it answers true, at most `ms`. A check whose request met a connection the
 * server had just closed (a kept-alive socket's race, `fetch failed`) is asked again.
 */
export async function until(
  check: () => Promise<boolean> | boolean,
  ms: number,
  what: string | (() => string),
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const held = await Promise.resolve()
      .then(check)
      .catch((error: unknown) => {
        if (error instanceof TypeError && error.message === "fetch failed") return false;
        throw error;
      });
    if (held) return;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${typeof what === "string" ? what : what()}`);
    await sleep(200);
  }
}

/** The listeners' certificate authority and the certificate every lane's listeners present. */
let listenerCertificates: { ca: CertificateAuthority; certificate: IssuedCertificate } | undefined;

/**
 * The webhook listeners' CA and server certificate, made once per worker and shared by every lane:
 * each is an RSA key made synchronously (about 0.3 s of CPU on the loaded machine, every lane of
 * the worker waiting meanwhile; the memory faults-bank file's worker spent 7.8 of its 21.6 s of
 * CPU making keys, six a lane), and the lanes' listeners are all ours, as one service's processes
 * share one certificate. Each lane's fake bank trusts this CA for its callbacks.
 */
export function laneListenerCertificates(): { ca: CertificateAuthority; certificate: IssuedCertificate } {
  if (!listenerCertificates) {
    const ca = listenerCertificateAuthority();
    listenerCertificates = { ca, certificate: ca.issueServer(["localhost", "127.0.0.1"]) };
  }
  return listenerCertificates;
}

export interface BankLaneOptions {
  /** `bank faults`, for the processes' and database's names. */
  name: string;
  store: "memory" | "postgres";
  processes: number;
  adminToken: string;
  /** The fake bank's options (the listener's CA is added). */
  bank?: Omit<FakeBankOptions, "webhookCa">;
  /** More of the operator's connection (`dialect` is the bank's). */
  connection?: Parameters<typeof connectionBodyOf>[1];
  /** More environment for every process. */
  env?: Record<string, string>;
}

/** A lane's bank, processes and the calls its scenarios make; usable once its `beforeAll` ran. */
export interface BankLane {
  bank(): FakeBank;
  servers: ServerProcess[];
  listenerPorts: number[];
  /** (Re)starts process `i` on its port. */
  start(i: number): Promise<ServerProcess>;
  /** The operator API of the first process alive (or of process `i`). */
  operator(i?: number): ReturnType<typeof operatorApi>;
  api(key: string, i?: number): ReturnType<typeof publicApi>;
  /** Production keys made so far, with their accounts. */
  accounts: { id: string; key: string }[];
  /** A verified account (release period 0) with a production key (default permissions, or `permissions`). */
  liveKey(permissions?: Permission[]): Promise<string>;
  /**
   * A production key that withdraws (`withdrawals:write` besides charging and reading), its account
   * holding `amountCents` less the fee of one charge the bank's payer paid.
   */
  withdrawingKey(amountCents: number): Promise<string>;
  /** A production charge registered at the bank (`WAITING_PAYMENT`). */
  waiting(key: string, i?: number, amountCents?: number): Promise<Transaction>;
  read(key: string, id: string): Promise<Transaction>;
  /** POSTs `body` to listener `i` with the bank's callback certificate (or `certificate`, or none): status, or the error. */
  callback(i: number, body: unknown, certificate?: IssuedCertificate | null): Promise<number | Error>;
  /** The lane's PostgreSQL database URL (null on memory), for a test that holds a lock in it. */
  databaseUrl(): string | null;
  /** Stops the processes and the bank, drops the database. */
  close(): Promise<void>;
}

/**
 * A lane: before the enclosing describe's tests (its `beforeAll`), a fake bank, a database on
 * PostgreSQL, `processes` server processes (the built `npm start`) connected to it by the operator,
 * each one's listener up and the webhook registered. `close` is the caller's to run after its
 * last test (a last test may look at every lane's processes).
 */
export function bankLane(options: BankLaneOptions): BankLane {
  let bank: FakeBank | undefined;
  let database: TestDatabase | undefined;
  let dir = "";
  const servers: ServerProcess[] = [];
  const listenerPorts: number[] = [];
  const stops = new Set<() => Promise<void>>();
  const accounts: { id: string; key: string }[] = [];
  const { ca: listenerCa, certificate: listenerCert } = laneListenerCertificates();
  const theBank = () => {
    if (!bank) throw new Error("the lane's fake bank is not started yet");
    return bank;
  };

  const envOf = (i: number): Record<string, string> => ({
    ADMIN_TOKEN: options.adminToken,
    RATE_LIMITS: "off",
    PIX_BANK_WAIT_MS: "1000",
    // A call's bounded wait, eight times the create's: a create that answers within its own wait
    // plus a loaded machine's queue (under 5 s, faults-bank's `down-creates`) is told apart from
    // one that waited for the bank's silence to time out (over 8 s).
    PIX_BANK_TIMEOUT_MS: "8000",
    PIX_BANK_RECONCILE_SECONDS: "3",
    PIX_BANK_RECONCILE_WINDOW_SECONDS: "600",
    // A withdrawal's send claim lapses in 3 s: a process killed before sending is recovered soon.
    PIX_BANK_PAYOUT_CLAIM_SECONDS: "3",
    PIX_BANK_WEBHOOK_PORT: String(listenerPorts[i]),
    PIX_BANK_WEBHOOK_CERT_FILE: join(dir, "listener.pem"),
    PIX_BANK_WEBHOOK_KEY_FILE: join(dir, "listener.key"),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });

  const lane: BankLane = {
    bank: theBank,
    servers,
    listenerPorts,
    accounts,
    databaseUrl: () => database?.url ?? null,
    async start(i) {
      const server = await startServerProcess({
        name: `${options.name} ${i}`,
        port: servers[i]?.port,
        env: envOf(i),
        track: (stop) => stops.add(stop),
      });
      servers[i] = server;
      return server;
    },
    operator(i) {
      const server = i === undefined ? servers.find((s) => s.alive()) : servers[i];
      return operatorApi((server as ServerProcess).baseUrl, { token: options.adminToken });
    },
    api(key, i = 0) {
      return publicApi((servers[i % servers.length] as ServerProcess).baseUrl, { key });
    },
    async liveKey(permissions) {
      const account = await bodyOf(
        lane.operator().POST("/admin/v1/accounts", {
          body: { name: "Loja Falhas Ltda", ownerEmail: "dono@falhas.example", verified: true, releasePeriodDays: 0 },
        }),
        201,
      );
      const key = await bodyOf(
        lane.operator().POST("/admin/v1/accounts/{id}/api-keys", {
          ...byId(account.id),
          body: { name: "live", mode: "production", ...(permissions ? { permissions } : {}) },
        }),
        201,
      );
      accounts.push({ id: account.id, key: key.secret });
      return key.secret;
    },
    read: (key, id) => bodyOf(lane.api(key).GET("/api/v1/transactions/{id}", byId(id)), 200),
    async withdrawingKey(amountCents) {
      const key = await lane.liveKey([
        "charges:write",
        "transactions:read",
        "balance:read",
        "withdrawals:read",
        "withdrawals:write",
      ]);
      const charge = await lane.waiting(key, 0, amountCents);
      theBank().pay(charge.pix.copyPaste);
      await theBank().settled();
      await until(async () => (await lane.read(key, charge.id)).status === "PAID", 15_000, "funded");
      return key;
    },
    async waiting(key, i = 0, amountCents = 8990) {
      const made = await lane.api(key, i).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
      expect(made.status).toBe(201);
      const id = (made.body as Transaction).id;
      await until(async () => (await lane.read(key, id)).status !== "PENDING", 15_000, "registered");
      const charge = await lane.read(key, id);
      expect(charge.status).toBe("WAITING_PAYMENT");
      return charge;
    },
    callback(i, body, certificate = theBank().callbackCertificate()) {
      return new Promise((resolve) => {
        const req = httpsRequest(
          {
            host: "127.0.0.1",
            port: listenerPorts[i],
            path: "/webhook/pix",
            method: "POST",
            ca: listenerCa.certPem,
            ...(certificate ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
            headers: { "content-type": "application/json" },
            timeout: 5_000,
            // A connection of its own: Node's global agent keeps connections alive, and a request
            // sent on one the listener was closing at that moment met a "socket hang up" (seen
            // once under load), a race of the test's sender, not an answer of the listener's.
            agent: false,
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", (error) => resolve(error));
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.end(JSON.stringify(body));
      });
    },
    async close() {
      for (const stop of stops) await stop();
      await bank?.close();
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };

  /** The operator's connection to the lane's bank, its webhook URL at process 0's listener. */
  const connect = async () =>
    bodyOf(
      lane.operator().PUT("/admin/v1/bank-connection", {
        body: connectionBodyOf(theBank(), {
          webhookUrl: `https://127.0.0.1:${listenerPorts[0]}/webhook`,
          ...options.connection,
        }),
      }),
      200,
    );

  /**
   * A listener's port is free when the kernel picks it (`freePort`), not always seconds later when
   * the process binds it: another test's listener can take it meanwhile, and the process then tries
   * again for as long as it is held (its log says `EADDRINUSE`). Such a process starts again on
   * another port (process 0 with the connection's webhook URL changed to it); false when none had to.
   */
  const moveTakenListeners = async (): Promise<boolean> => {
    let moved = false;
    for (const [i, server] of servers.entries()) {
      if (!server.output().includes(`EADDRINUSE: address already in use 127.0.0.1:${listenerPorts[i]}`)) continue;
      await server.stop();
      listenerPorts[i] = await freePort();
      await lane.start(i);
      if (i === 0) await connect();
      moved = true;
    }
    return moved;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bank-lane-"));
    writeFileSync(join(dir, "listener.pem"), listenerCert.certPem);
    writeFileSync(join(dir, "listener.key"), listenerCert.keyPem);
    if (options.store !== "memory") database = await createTestDatabase(options.name.replace(/\W+/g, "_"));
    bank = await startFakeBank({ ...options.bank, webhookCa: listenerCa.certPem });
    listenerPorts.push(await freePort());
    await lane.start(0);
    await connect();
    for (let i = 1; i < options.processes; i++) {
      listenerPorts.push(await freePort());
      await lane.start(i);
    }
    // Every process holds the connection and its listener, and the webhook is registered.
    let answers: (number | Error)[] = [];
    let moves = 0;
    await until(
      async () => {
        if (moves < 3 && (await moveTakenListeners())) moves++;
        answers = await Promise.all(servers.map((_, i) => lane.callback(i, { pix: [] })));
        return answers.every((a) => a === 200 || a === 204);
      },
      30_000,
      () => `every listener up: ${answers.map(String).join(", ")}\n${servers.map((x) => x.output()).join("\n")}`,
    );
    await until(
      () =>
        theBank()
          .requests()
          .some((r) => r.method === "PUT" && r.path.includes("/webhook/")),
      20_000,
      "the webhook registered",
    );
  }, 240_000);

  return lane;
}
