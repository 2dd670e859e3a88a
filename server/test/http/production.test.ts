/**
 * The production shape: the compiled server (`npm run build`) started with `node` as a child
 * process; busy port, invalid configuration, graceful shutdown with work in flight, readiness.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostgresStore } from "../../src/store/postgres/index.js";
import {
  byId,
  chargeBody,
  expectStatus,
  operatorApi,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
} from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { freePort } from "../../../scripts/pg-cluster.js";
import { serverEntry } from "../support/server-process.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
/**
 * The run's build of the server (support/server-process.ts: scripts/build.mjs, the build `npm start`
 * runs, without the web app and the documentation site, into test-artifacts/ so a running
 * `npm start` keeps its dist/): /docs then serves the references, and nothing here opens /painel.
 */
let entry: string;

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function startCompiled(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Waits until the child printed `pattern` on stdout; fails when it exits first or after 20 s. */
async function waitForOutput(started: Started, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const found = pattern.exec(started.stdout());
    if (found) return found;
    if (started.child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`no ${pattern} in time:\n${started.stdout()}\n${started.stderr()}`);
}

/** Resolves with the exit within `ms`, or fails. */
async function exitWithin(started: Started, ms: number) {
  const timeout = sleep(ms).then(() => {
    throw new Error(`the server did not exit within ${ms} ms:\n${started.stdout()}\n${started.stderr()}`);
  });
  return Promise.race([started.exited, timeout]);
}

function isGone(pid: number | undefined): boolean {
  if (pid === undefined) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** A server started on a free port, waited for until it printed its banner. */
async function startListening(env: Record<string, string> = {}) {
  const port = await freePort();
  const started = startCompiled({ PORT: String(port), ...env });
  await waitForOutput(started, /ouvindo em/);
  return { ...started, port, baseUrl: `http://127.0.0.1:${port}` };
}

/**
 * A started server with its development key, warmed up: the first API request waits for the
 * OpenAPI validator to load, which keeps the event loop (and so signal handling) busy for a while
 * on a loaded machine. Logs at info, so the shutdown's first line can be waited for.
 */
async function startWarm(env: Record<string, string> = {}) {
  const server = await startListening({ LOG_LEVEL: "info", LOG_FORMAT: "json", ...env });
  const [, key = ""] = await waitForOutput(server, /(svc_test_[A-Za-z0-9]+)/);
  expect((await publicApi(server.baseUrl, { key }).GET("/api/v1/balance")).status).toBe(200);
  return { ...server, key };
}

/**
 * A request the server has begun but cannot finish yet: headers and half of a JSON body sent over
 * a raw socket. `finish()` sends the rest and resolves with the whole raw response.
 */
async function requestInFlight(port: number, path: string, key: string, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let response = "";
  socket.on("data", (chunk) => (response += chunk));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n` +
      `content-length: ${payload.length}\r\nconnection: keep-alive\r\n\r\n`,
  );
  socket.write(payload.subarray(0, half));
  return {
    async finish(): Promise<string> {
      socket.write(payload.subarray(half));
      await Promise.race([ended, sleep(10_000)]);
      socket.destroy();
      return response;
    },
    destroy: () => socket.destroy(),
  };
}

async function connectionRefused(port: number): Promise<boolean> {
  const socket = connect(port, "127.0.0.1");
  return new Promise((resolve) => {
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

beforeAll(async () => {
  entry = await serverEntry();
}, 190_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  expect(children.filter((child) => !isGone(child.pid))).toEqual([]);
});

describe("npm start on compiled code", () => {
  test("when package.json starts the server, then it runs node on the build, and tsx is only a devDependency", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

    expect(pkg.scripts.start).toMatch(/^exec node .*dist\/server\/src\/main\.js$/);
    expect(pkg.scripts.prestart).toContain("scripts/build.mjs");
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.devDependencies.tsx).toBeDefined();
  });

  test("when the build is started with node, then it serves the probes, the home page, the favicon and the docs, and prints the account id and key", async () => {
    const server = await startListening();
    // The banner's lines can reach the pipe in more than one chunk: wait for the last of them.
    await waitForOutput(server, /Experimente: curl/);

    expect(server.stdout()).toMatch(/Conta de desenvolvimento \(para os comandos de operador\): acc_[A-Za-z0-9]+/);
    expect(server.stdout()).toMatch(/svc_test_[A-Za-z0-9]+/);
    const health = await publicApi(server.baseUrl).GET("/health");
    expect(health).toMatchObject({ status: 200, body: { ok: true } });
    expect(await publicApi(server.baseUrl).GET("/ready")).toMatchObject({ status: 200, body: { ok: true } });
    const home = await fetch(`${server.baseUrl}/`);
    expect(home.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await home.text();
    for (const link of ['href="/docs"', 'href="/health"', 'href="/openapi.yaml"', "/api/v1/charges/pix"]) {
      expect(html).toContain(link);
    }
    // The home page is outside the documents.
    const homeJson = await rawCall(server.baseUrl, "GET", "/", { headers: { accept: "application/json" } });
    expect(homeJson.body).toMatchObject({ docs: "/docs", health: "/health", openapi: "/openapi.yaml" });
    const icon = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(await icon.text()).toContain("<svg");
    const document = await fetch(`${server.baseUrl}/openapi.yaml`);
    expect(await document.text()).toContain("/ready:");
    expect((await fetch(`${server.baseUrl}/docs/api/assets/swagger-ui.css`)).status).toBe(200);

    server.child.kill("SIGTERM");
    expect(await exitWithin(server, 10_000)).toEqual({ code: 0, signal: null });
    expect(isGone(server.child.pid)).toBe(true);
  });

  test("when the port is taken, then the server exits non-zero naming the port, and prints no key", async () => {
    const blocker = createTcpServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const started = startCompiled({ PORT: String(port) });

      const exit = await exitWithin(started, 20_000);

      expect(exit.code).toBe(1);
      expect(started.stderr()).toContain(`porta em uso: ${port}`);
      expect(started.stdout()).not.toMatch(/ouvindo|svc_test_|adm_/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  test.each<{ name: string; env: Record<string, string>; message: string }>([
    { name: "PORT is not a number", env: { PORT: "abc" }, message: 'PORT="abc"' },
    {
      name: "NODE_ENV=production has RATE_LIMITS=off",
      env: { NODE_ENV: "production", PUBLIC_BASE_URL: "https://pix.example.com.br", RATE_LIMITS: "off" },
      message: "RATE_LIMITS=off",
    },
    { name: "WEB_CONCURRENCY=2 has no database", env: { WEB_CONCURRENCY: "2" }, message: "WEB_CONCURRENCY=2" },
  ])("when $name, then the server exits 1 with a clear message and no stack trace", async ({ env, message }) => {
    const started = startCompiled(env);

    const exit = await exitWithin(started, 20_000);

    expect(exit.code).toBe(1);
    expect(started.stderr()).toMatch(/^Configuração inválida:/);
    expect(started.stderr()).toContain(message);
    expect(started.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe("start-up failures", () => {
  test("when the database is unreachable at start, then the server exits 1 saying so on stderr", async () => {
    const started = startCompiled({
      PORT: String(await freePort()),
      DATABASE_URL: `postgres://pix@127.0.0.1:${await freePort()}/pix`,
    });

    const exit = await exitWithin(started, 20_000);

    expect(exit.code).toBe(1);
    expect(started.stderr()).toMatch(/^falha ao iniciar: .*ECONNREFUSED/);
    expect(started.stdout()).not.toMatch(/ouvindo|svc_test_/);
  });
});

describe("graceful shutdown", () => {
  test("when SIGTERM arrives with a request in flight, then new connections are refused, the request completes 201 and the process exits 0", async () => {
    const server = await startWarm();
    const inFlight = await requestInFlight(server.port, "/api/v1/charges/pix", server.key, chargeBody());
    await sleep(200);

    server.child.kill("SIGTERM");
    await waitForOutput(server, /encerrando/);
    await sleep(200);
    const refusedWhileDraining = await connectionRefused(server.port);
    const aliveWhileDraining = server.child.exitCode === null;
    const response = await inFlight.finish();
    const exit = await exitWithin(server, 10_000);

    expect(refusedWhileDraining).toBe(true);
    expect(aliveWhileDraining).toBe(true);
    expect(response).toMatch(/^HTTP\/1\.1 201 /);
    expect(response).toContain('"status":"WAITING_PAYMENT"');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(isGone(server.child.pid)).toBe(true);
  });

  test("when a second signal arrives while draining, then the process exits at once with 1", async () => {
    const server = await startWarm();
    const inFlight = await requestInFlight(server.port, "/api/v1/charges/pix", server.key, chargeBody());
    await sleep(200);

    server.child.kill("SIGTERM");
    await waitForOutput(server, /encerrando/);
    server.child.kill("SIGINT");
    const exit = await exitWithin(server, 3_000);

    expect(exit).toEqual({ code: 1, signal: null });
    inFlight.destroy();
  });

  test("when in-flight work outlasts SHUTDOWN_TIMEOUT_MS, then the process exits 1 at the deadline", async () => {
    const server = await startWarm({ SHUTDOWN_TIMEOUT_MS: "500" });
    const inFlight = await requestInFlight(server.port, "/api/v1/charges/pix", server.key, chargeBody());
    await sleep(200);

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    const exit = await exitWithin(server, 5_000);

    expect(exit).toEqual({ code: 1, signal: null });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(400);
    inFlight.destroy();
  });

  test("when SIGTERM arrives during a webhook attempt, then the attempt finishes before the process exits 0", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let received: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      received();
      void released.then(() => res.writeHead(200).end("ok"));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const server = await startListening({ PIX_ALLOW_LOCAL_WEBHOOKS: "1", LOG_LEVEL: "info", LOG_FORMAT: "json" });
      const [, adminToken] = await waitForOutput(server, / ADMIN_TOKEN=(adm_[A-Za-z0-9]+)/);
      const [, accountId] = await waitForOutput(server, /operador\): (acc_[A-Za-z0-9]+)/);
      const [, key] = await waitForOutput(server, /(svc_test_[A-Za-z0-9]+)/);
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;
      const endpoint = await operatorApi(server.baseUrl, { token: adminToken ?? "" }).POST(
        "/admin/v1/accounts/{id}/webhook-endpoints",
        { ...byId(accountId ?? ""), body: { url: hookUrl, mode: "test", events: ["transaction.paid"] } },
      );
      expect(endpoint.status).toBe(201);
      const api = publicApi(server.baseUrl, { key: key ?? "" });
      const charge = await api.POST("/api/v1/charges/pix", { body: chargeBody() });
      expectStatus(charge, 201);
      await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id));
      await Promise.race([arrived, sleep(10_000).then(() => Promise.reject(new Error("no webhook attempt")))]);

      server.child.kill("SIGTERM");
      await waitForOutput(server, /encerrando/);
      await sleep(300);
      const aliveDuringAttempt = server.child.exitCode === null;
      release();
      const exit = await exitWithin(server, 10_000);

      expect(aliveDuringAttempt).toBe(true);
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      release();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe("GET /ready", () => {
  let memory: TestServer;
  let unreachable: TestServer;
  let unreachablePool: pg.Pool;
  beforeAll(async () => {
    memory = await startTestServer();
    // A pool to a port nobody listens on: every query fails as a database outage does.
    const closedPort = await freePort();
    unreachablePool = new pg.Pool({ connectionString: `postgres://pix@127.0.0.1:${closedPort}/pix` });
    unreachable = await startTestServer({ store: new PostgresStore(unreachablePool) });
  });
  afterAll(async () => {
    await memory.close();
    await unreachable.close();
    await unreachablePool.end();
  });

  test("when the memory store serves, then /ready and /health answer 200 without a key", async () => {
    expect(await publicApi(memory.baseUrl).GET("/ready")).toMatchObject({ status: 200, body: { ok: true } });
    expect(await publicApi(memory.baseUrl).GET("/health")).toMatchObject({ status: 200, body: { ok: true } });
  });

  test("when the database is unreachable, then /ready is 503 SERVICE_UNAVAILABLE with Retry-After and /health stays 200", async () => {
    const res = await publicApi(unreachable.baseUrl).GET("/ready");

    expectStatus(res, 503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toMatchObject({
      ok: false,
      code: "SERVICE_UNAVAILABLE",
      message: "Serviço temporariamente indisponível. Tente novamente em instantes.",
      path: "/ready",
    });
    expect(typeof res.body.timestamp).toBe("string");
    expect(await publicApi(unreachable.baseUrl).GET("/health")).toMatchObject({ status: 200 });
  });
});

describePg("on PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("production");
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
  });

  test("when the database answers, then /ready is 200", async () => {
    const pool = new pg.Pool({ connectionString: db.url });
    const server = await startTestServer({ store: new PostgresStore(pool) });
    try {
      expect(await publicApi(server.baseUrl).GET("/ready")).toMatchObject({ status: 200, body: { ok: true } });
    } finally {
      await server.close();
      await pool.end();
    }
  });

  test("when WEB_CONCURRENCY=2, then two server processes share the port and all stop on SIGTERM with exit 0", async () => {
    const server = await startListening({ DATABASE_URL: db.url, WEB_CONCURRENCY: "2" });
    const workers = execFileSync("ps", ["-o", "pid=", "--ppid", String(server.child.pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);

    expect(server.stdout()).toContain("2 processos");
    expect(workers).toHaveLength(2);
    const answers = await Promise.all(Array.from({ length: 20 }, () => publicApi(server.baseUrl).GET("/ready")));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));

    server.child.kill("SIGTERM");
    expect(await exitWithin(server, 15_000)).toEqual({ code: 0, signal: null });
    expect(workers.filter((pid) => !isGone(pid))).toEqual([]);
  }, 60_000);
});
