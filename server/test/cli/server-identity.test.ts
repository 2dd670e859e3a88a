/**
 * The operator CLI and the server it talks to (issue 24, §4.5 and §4.7): the start-up banner
 * prints the server and the token as one line to paste; the CLI sends no token or API key to a
 * server that does not identify itself as this service; the clock commands against a server
 * without PIX_MANUAL_CLOCK=1 say that the manual clock is off.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { expectStatus, operatorApi } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";

const run = promisify(execFile);
let server: ServerProcess;
let stopServer: () => Promise<void> = async () => undefined;
/** The banner's line to paste, and the token in it. */
let exportLine = "";
let token = "";

beforeAll(async () => {
  // No ADMIN_TOKEN (the server makes one and prints it) and no PIX_MANUAL_CLOCK.
  server = await startServerProcess({
    name: "identity",
    env: { ADMIN_TOKEN: "" },
    track: (stop) => (stopServer = stop),
  });
  const deadline = Date.now() + 20_000;
  while (!/^export .*$/m.test(server.output()) && Date.now() < deadline) await sleep(50);
  exportLine = /^export .*$/m.exec(server.output())?.[0] ?? "";
  token = / ADMIN_TOKEN=(adm_\w+)/.exec(exportLine)?.[1] ?? "";
}, 60_000);
afterAll(() => stopServer());

/** This process's environment without the CLI's variables, so only what a test gives counts. */
function cleanEnv(): Record<string, string | undefined> {
  const { PIX_ADMIN_URL: _url, ADMIN_TOKEN: _token, PIX_API_KEY: _key, ...rest } = process.env;
  return rest;
}

describe("the start-up banner", () => {
  test("when the server makes its operator token, then it prints the server and the token as one export line", () => {
    expect(exportLine).toMatch(
      new RegExp(`^export PIX_ADMIN_URL=http://127\\.0\\.0\\.1:${server.port} ADMIN_TOKEN=adm_\\w+$`),
    );
  });

  test("when that line is pasted into a shell, then the operator CLI reaches this server (not the default port) with that token", async () => {
    const tsx = join(process.cwd(), "node_modules/tsx/dist/cli.mjs");
    const script = `${exportLine}\nexec "${process.execPath}" "${tsx}" server/src/cli/main.ts --json accounts list`;

    const { stdout } = await run("sh", ["-c", script], { env: cleanEnv(), timeout: 30_000 });

    expect(JSON.parse(stdout).data.map((a: { name: string }) => a.name)).toContain("Loja de Desenvolvimento");
  });
});

describe("a server that does not identify itself as this service", () => {
  let foreign: Server;
  let foreignUrl = "";
  const received: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
  let answer: (url: string) => { status: number; headers?: Record<string, string>; body: string } = () => ({
    status: 404,
    body: "",
  });
  beforeAll(async () => {
    foreign = createServer((req, res) => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
      req.resume();
      const { status, headers, body } = answer(req.url ?? "");
      res.writeHead(status, headers).end(body);
    });
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
    foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => foreign.close(() => resolve())));

  test.each([
    { name: "answers 404 to everything", answer: () => ({ status: 404, body: "Not Found" }) },
    {
      name: "answers every path with 200 JSON, like a health probe",
      answer: () => ({ status: 200, headers: { "content-type": "application/json" }, body: '{"ok":true}' }),
    },
    {
      name: "redirects to this service",
      answer: () => ({ status: 302, headers: { location: `${server.baseUrl}/` }, body: "" }),
    },
    {
      name: "names another service",
      answer: () => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: '{"ok":true,"service":"Outro Serviço"}',
      }),
    },
  ])("when it $name, then neither the operator token nor the API key reaches it", async ({ answer: respond }) => {
    answer = respond;
    received.length = 0;

    const operator = await runAdmin(["accounts", "list"], {
      PIX_ADMIN_URL: foreignUrl,
      ADMIN_TOKEN: token,
      PIX_API_KEY: undefined,
    });
    const partner = await runAdmin(["trigger", "transaction.paid"], {
      PIX_ADMIN_URL: foreignUrl,
      ADMIN_TOKEN: undefined,
      PIX_API_KEY: "svc_test_00000000000000000000000000000000",
    });

    expect(operator.code).toBe(1);
    expect(operator.stderr).toContain(`erro: ${foreignUrl} não é o Pix Charging Service`);
    expect(partner.code).toBe(1);
    expect(partner.stderr).toContain("não é o Pix Charging Service");
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /", "GET /"]);
    expect(
      received.filter((r) => r.headers.authorization !== undefined || r.headers["x-api-key"] !== undefined),
    ).toEqual([]);
  });

  test("when the server is this service, then the CLI asks it once and then sends the token", async () => {
    const listed = await runAdmin(["--json", "accounts", "list"], {
      PIX_ADMIN_URL: server.baseUrl,
      ADMIN_TOKEN: token,
    });

    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).data.length).toBeGreaterThan(0);
  });
});

describe("the clock of a server without PIX_MANUAL_CLOCK=1", () => {
  const admin = () => operatorApi(server.baseUrl, { token });
  test.each([
    { method: "GET", path: "/admin/v1/clock", send: () => admin().GET("/admin/v1/clock") },
    {
      method: "POST",
      path: "/admin/v1/clock/advance",
      send: () => admin().POST("/admin/v1/clock/advance", { body: { seconds: 60 } }),
    },
  ])(
    "when $method $path is called, then it answers 404 saying the manual clock is off",
    async ({ method, path, send }) => {
      const res = await send();

      expectStatus(res, 404);
      expect(res.body).toMatchObject({ ok: false, code: "NOT_FOUND", path });
      expect(res.body.message).toContain("O relógio manual está desligado");
      expect(res.body.message).toContain("PIX_MANUAL_CLOCK=1");
      // The document shows the same answer (spec/admin/clock.tsp).
      const document = parse(readFileSync(join(process.cwd(), "generated/admin-openapi.yaml"), "utf8"));
      const operation = document.paths[path][method.toLowerCase()];
      expect(operation.responses["404"].content["application/json"].examples.manualClockOff.value).toMatchObject({
        code: "NOT_FOUND",
        message: res.body.message,
        path,
      });
    },
  );

  test("when clock advance runs through the CLI, then it exits 1 with that message", async () => {
    const advanced = await runAdmin(["clock", "advance", "60"], {
      PIX_ADMIN_URL: server.baseUrl,
      ADMIN_TOKEN: token,
    });

    expect(advanced.code).toBe(1);
    expect(advanced.stderr).toMatch(
      /^erro: 404 NOT_FOUND O relógio manual está desligado neste servidor: .*PIX_MANUAL_CLOCK=1/,
    );
  });
});
