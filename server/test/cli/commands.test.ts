import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Command } from "commander";
import { verifyWebhook } from "../../../client/src/index.js";
import { buildProgram } from "../../src/cli/cli.js";
import { allPermissions } from "../../src/domain/accounts/index.js";
import { record, table } from "../../src/cli/output.js";
import {
  bodyOf,
  byId,
  chargeBody,
  expectStatus,
  operatorApi,
  publicApi,
  startTestServer,
  type TestServer,
  testAdminToken,
} from "../harness.js";
import { runAdmin, runAdminProcess, startAdmin, widestLine } from "../support/admin-process.js";
import { signedUp } from "../support/dashboard.js";
import { startReceiver } from "../support/receiver.js";

/** Tests that start several CLI processes: generous on a busy machine. */
const processTimeout = 60_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** The CLI against the test server, in this process; `--json` output parsed. */
const admin = (...args: string[]) => runAdmin(args, { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken });
async function adminJson(...args: string[]) {
  const run = await admin("--json", ...args);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}
/** Human output: exit 0, nothing on stderr, no line over 100 columns. */
async function adminText(...args: string[]) {
  const run = await admin(...args);
  expect(run.code, run.stderr).toBe(0);
  expect(widestLine(run.stdout)).toBeLessThanOrEqual(100);
  return run.stdout;
}

const api = (key: string) => publicApi(server.baseUrl, { key });
/** A test charge made with `key` (201 or the test fails). */
const newCharge = (key: string, amountCents?: number) =>
  bodyOf(api(key).POST("/api/v1/charges/pix", { body: chargeBody(amountCents ? { amountCents } : {}) }), 201);
const pay = (key: string, id: string) => api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(id));

/** Every command with no subcommands, with its full name ("keys create"). */
function leafCommands(command: Command, prefix: string[] = []): { name: string; command: Command }[] {
  return command.commands.flatMap((c) =>
    c.commands.length > 0
      ? leafCommands(c, [...prefix, c.name()])
      : [{ name: [...prefix, c.name()].join(" "), command: c }],
  );
}

describe("admin help", { timeout: processTimeout }, () => {
  test("when ADMIN_TOKEN is set, then --help names the variable but never prints the token", async () => {
    const token = "adm_do_not_print_me_4242";
    for (const args of [["--help"], ["keys", "create", "--help"], ["help", "webhooks"]]) {
      const run = await runAdminProcess(args, { ADMIN_TOKEN: token, PIX_ADMIN_URL: "http://127.0.0.1:1" });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Uso: admin");
      expect(run.stdout).toContain("ADMIN_TOKEN");
      expect(run.stdout).not.toContain(token);
      expect(run.stdout).not.toContain("127.0.0.1:1");
      expect(widestLine(run.stdout)).toBeLessThanOrEqual(100);
    }
  });

  test("when any command's help is built with secrets in the environment, then none shows and all is described", () => {
    const saved = { ADMIN_TOKEN: process.env.ADMIN_TOKEN, PIX_API_KEY: process.env.PIX_API_KEY };
    process.env.ADMIN_TOKEN = "adm_in_env_0000";
    process.env.PIX_API_KEY = "svc_test_in_env_0000";
    try {
      const program = buildProgram();
      const leaves = leafCommands(program);
      const globals = program.options.map((o) => o.long);
      expect(globals).toEqual(["--server", "--token", "--api-key", "--json"]);
      expect(leaves.map((l) => l.name)).toEqual(
        expect.arrayContaining([
          "accounts create",
          "webhooks create",
          "deliveries replay",
          "customers set-notes",
          "trigger",
        ]),
      );
      for (const { name, command } of leaves) {
        const help = command.helpInformation();
        expect(command.description(), name).not.toBe("");
        for (const option of command.options) {
          expect(option.description, `${name} ${option.flags}`).not.toBe("");
          expect(globals, `${name} ${option.flags} shadows a global option`).not.toContain(option.long);
        }
        expect(help).not.toContain("adm_in_env_0000");
        expect(help).not.toContain("svc_test_in_env_0000");
        expect(widestLine(help), name).toBeLessThanOrEqual(100);
      }
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  test("when --server is given, then it wins over PIX_ADMIN_URL", async () => {
    const run = await runAdmin(["--server", server.baseUrl, "--json", "clock", "get"], {
      PIX_ADMIN_URL: "http://127.0.0.1:1",
      ADMIN_TOKEN: testAdminToken,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).now).toBe(server.clock.now().toISOString());
  });

  test("when no token is set, then the process exits 1 and says which variable is missing", async () => {
    const run = await runAdminProcess(["accounts", "list"], { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: undefined });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ADMIN_TOKEN não está definido");
  });

  test("when the server cannot be reached, then the process exits 1 and points at --server", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));

    const run = await runAdminProcess(["accounts", "list"], {
      PIX_ADMIN_URL: `http://127.0.0.1:${port}`,
      ADMIN_TOKEN: testAdminToken,
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain("erro: o servidor não responde (ECONNREFUSED): confira --server ou PIX_ADMIN_URL");
  });

  test("when a number option is not an integer, then commander refuses before any request", async () => {
    const run = await admin("clock", "advance", "soon");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("não é um número inteiro: soon");
  });
});

describe("admin accounts", { timeout: processTimeout }, () => {
  test("when an account is created, read, updated, verified and listed, then each command shows it", async () => {
    await server.newAccount();
    const created = await adminJson("accounts", "create", "--name", "Mercado Central", "--owner-email", "m@c.example");
    expect(created).toMatchObject({ name: "Mercado Central", ownerEmail: "m@c.example", verified: false });

    const shown = await adminText("accounts", "get", created.id);
    expect(shown).toMatch(new RegExp(`^id\\s+${created.id}$`, "m"));
    expect(shown).toMatch(/^ownerEmail\s+m@c\.example$/m);
    expect(shown).toMatch(/^plan\.chargeFeeCents\s+\d+$/m);

    const updated = await adminJson(
      "accounts",
      "update",
      created.id,
      "--name",
      "Mercado Central Ltda",
      "--release-period-days",
      "3",
      "--charge-fee-bps",
      "150",
    );
    expect(updated).toMatchObject({ name: "Mercado Central Ltda", releasePeriodDays: 3, plan: { chargeFeeBps: 150 } });
    expect(updated.ownerEmail).toBe("m@c.example");

    const verified = await adminText("accounts", "verify", created.id);
    expect(verified).toMatch(/^verified\s+true$/m);
    expect((await adminJson("accounts", "get", created.id)).verified).toBe(true);

    const listed = await adminText("accounts", "list");
    expect(listed.split("\n")[0]).toMatch(/^id\s+name\s+ownerEmail\s+verified\s+createdAt$/);
    expect(listed).toContain(created.id);
    const page = await adminJson("accounts", "list", "--limit", "1");
    expect(page.data).toHaveLength(1);
    expect(page.hasMore).toBe(true);
    const firstPage = await adminText("accounts", "list", "--limit", "1");
    expect(firstPage).toContain(`Há mais resultados: acrescente --starting-after ${page.data[0].id}`);
    const next = await adminJson("accounts", "list", "--limit", "1", "--starting-after", page.data[0].id);
    expect(next.data[0].id).not.toBe(page.data[0].id);
  });

  test("when a merchant asked for verification, then the operator lists the waiting requests and rejects one with a reason", async () => {
    const { browser, session } = await signedUp(server);
    const asked = await browser.api.POST("/dashboard/v1/account/verification", {
      body: { legalName: "Mercado Central Ltda", document: "11.222.333/0001-81" },
    });
    expect(asked.status).toBe(201);
    const accountId = session.account.id;

    const waiting = await adminJson("accounts", "verification-requests", "--status", "requested");
    const listed = await adminText("accounts", "verification-requests", "--status", "requested");
    const rejected = await adminText(
      "accounts",
      "reject-verification",
      accountId,
      "--request-version",
      "1",
      "--reason",
      "CNPJ inapto.",
    );

    expect(waiting.data.map((r: { accountId: string }) => r.accountId)).toContain(accountId);
    expect(listed.split("\n")[0]).toMatch(
      /^accountId\s+version\s+accountName\s+documentType\s+document\s+status\s+requestedAt$/,
    );
    expect(rejected).toMatch(/^status\s+rejected$/m);
    expect(rejected).toMatch(/^rejectionReason\s+CNPJ inapto\.$/m);
    const account = await browser.api.GET("/dashboard/v1/account");
    expect(account.status).toBe(200);
    expect((account.body as { verification: { status: string } }).verification.status).toBe("rejected");
  });

  test("when --document is given, then create and update send it and the record shows it as digits", async () => {
    const created = await adminJson(
      "accounts",
      "create",
      "--name",
      "Padaria Pão Quente Ltda",
      "--owner-email",
      "p@q.example",
      "--document",
      "11.222.333/0001-81",
    );
    expect(created).toMatchObject({ documentType: "CNPJ", document: "11222333000181" });

    const shown = await adminText("accounts", "get", created.id);
    expect(shown).toMatch(/^documentType\s+CNPJ$/m);
    expect(shown).toMatch(/^document\s+11222333000181$/m);

    const updated = await adminJson("accounts", "update", created.id, "--document", "529.982.247-25");
    expect(updated).toMatchObject({ documentType: "CPF", document: "52998224725", name: "Padaria Pão Quente Ltda" });

    const refused = await admin(
      "accounts",
      "create",
      "--name",
      "Loja X",
      "--owner-email",
      "x@q.example",
      "--document",
      "11222333000182",
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("400 REQUEST_ERROR");
    expect(refused.stderr).toContain("CNPJ inválido");
  });
});

describe("admin keys", { timeout: processTimeout }, () => {
  test("when a key is created as text, then the whole secret is on one line and no line passes 100 columns", async () => {
    const { account } = await server.newAccount();
    const out = await adminText(
      "keys",
      "create",
      account.id,
      "--name",
      "backend with a rather long descriptive name for the table",
      "--permissions",
      "transactions:read,charges:write,payment_links:read,payment_links:write,customers:read,balance:read",
      "--allowed-ips",
      "10.0.0.0/8,192.168.0.0/16,203.0.113.7",
    );
    const secret = /^secret\s+(\S+)$/m.exec(out)?.[1] ?? "";
    expect(secret).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
    expect((await api(secret).GET("/api/v1/transactions")).status).not.toBe(401);
    expect(out).toContain("não é mostrado de novo");
  });

  test("when keys create and keys update get every permission, then the key holds them all", async () => {
    const { account } = await server.newAccount();
    const every = allPermissions.join(",");

    const created = await adminJson("keys", "create", account.id, "--name", "all", "--permissions", every);
    await adminJson("keys", "update", created.id, "--permissions", "balance:read");
    const updated = await adminJson("keys", "update", created.id, "--permissions", every);

    expect(allPermissions).toHaveLength(12);
    expect(created.permissions).toEqual([...allPermissions]);
    expect(updated.permissions).toEqual([...allPermissions]);
  });

  test("when keys are listed, updated and revoked, then the changes show and the secret never does", async () => {
    const { account } = await server.newAccount();
    const key = await adminJson("keys", "create", account.id, "--name", "ops", "--daily-limit", "2500");
    expect(key.dailyWithdrawLimitCents).toBe(2500);

    const listed = await adminText("keys", "list", account.id);
    expect(listed).toContain(key.id);
    expect(listed).not.toContain(key.secret);

    const updated = await adminJson(
      "keys",
      "update",
      key.id,
      "--permissions",
      "balance:read",
      "--allowed-ips",
      "127.0.0.1",
      "--daily-limit",
      "none",
    );
    expect(updated).toMatchObject({ permissions: ["balance:read"], allowedIps: ["127.0.0.1"] });
    expect(updated.dailyWithdrawLimitCents).toBeNull();
    expect(updated).not.toHaveProperty("secret");

    const revoked = await adminText("keys", "revoke", key.id);
    expect(revoked).not.toMatch(/^revokedAt\s+-$/m);
    expect((await api(key.secret).GET("/api/v1/balance")).status).toBe(401);
  });
});

describe("admin webhooks, deliveries and events", { timeout: processTimeout }, () => {
  test("when webhooks create gets --url and --events, then the endpoint is registered with them", async () => {
    const { account } = await server.newAccount();
    const run = await admin(
      "webhooks",
      "create",
      account.id,
      "--url",
      "https://93.184.215.14/webhook",
      "--events",
      "transaction.paid",
      "--json",
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const created = JSON.parse(run.stdout);
    expect(created).toMatchObject({ url: "https://93.184.215.14/webhook", events: ["transaction.paid"], mode: "test" });
    expect(created.secret).toMatch(/^whsec_/);
  });

  test("when an endpoint is listed, updated, rotated and deleted, then each command shows it", async () => {
    const { account } = await server.newAccount();
    const text = await adminText(
      "webhooks",
      "create",
      account.id,
      "--url",
      `https://93.184.215.14/${"a-very-long-path/".repeat(8)}webhook`,
      "--events",
      "transaction.paid,withdrawal.created,withdrawal.paid,withdrawal.partially_paid,withdrawal.failed",
    );
    const endpointId = /^id\s+(we_\S+)$/m.exec(text)?.[1] ?? "";
    expect(endpointId).not.toBe("");
    expect(text).toMatch(/^secret\s+whsec_\S+$/m);

    const listed = await adminText("webhooks", "list", account.id);
    expect(listed).toContain(endpointId);
    expect(listed).not.toContain("whsec_");

    const updated = await adminJson("webhooks", "update", endpointId, "--events", "transaction.paid", "--disable");
    expect(updated).toMatchObject({ events: ["transaction.paid"], enabled: false });
    const enabled = await adminJson("webhooks", "update", endpointId, "--enable");
    expect(enabled.enabled).toBe(true);

    const before = /^secret\s+(\S+)$/m.exec(text)?.[1];
    const rotated = await adminText("webhooks", "rotate-secret", endpointId);
    const after = /^secret\s+(whsec_\S+)$/m.exec(rotated)?.[1];
    expect(after).toBeDefined();
    expect(after).not.toBe(before);

    expect(await adminJson("webhooks", "delete", endpointId)).toEqual({ id: endpointId, deleted: true });
    const gone = await admin("webhooks", "update", endpointId, "--enable");
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("404 NOT_FOUND");
  });

  test("when an event is paid, then events list, deliveries list and replay show it", async () => {
    const { account, testKey } = await server.newAccount();
    const endpoint = await bodyOf(
      operatorApi(server.baseUrl, { token: testAdminToken }).POST("/admin/v1/accounts/{id}/webhook-endpoints", {
        ...byId(account.id),
        body: { url: "https://93.184.215.14/webhook", mode: "test", events: ["transaction.paid"] },
      }),
      201,
    );
    const endpointId = endpoint.id;
    const charge = await newCharge(testKey);
    await pay(testKey, charge.id);
    const events = await adminJson("events", "list", account.id, "--mode", "test");
    expect(events.data.map((e: { type: string }) => e.type)).toEqual(["transaction.paid"]);
    expect(await adminText("events", "list", account.id)).toContain(events.data[0].id);

    const deliveries = await adminText("deliveries", "list", endpointId);
    expect(deliveries.split("\n")[0]).toMatch(/^id\s+eventId\s+status/);
    expect(deliveries).toContain(events.data[0].id);

    const replayed = await adminJson("deliveries", "replay", events.data[0].id);
    expect(replayed.eventId).toBe(events.data[0].id);
    expect(replayed.deliveries).toHaveLength(1);
    expect(await adminText("deliveries", "replay", events.data[0].id)).toContain(endpointId);
    expect((await adminJson("deliveries", "list", endpointId)).data).toHaveLength(3);
  });
});

describe("admin customers", { timeout: processTimeout }, () => {
  test("when notes and tags are set, then notes shows them, wrapped within 100 columns", async () => {
    const { testKey } = await server.newAccount();
    const customer = await api(testKey).POST("/api/v1/customers", {
      body: {
        name: "Maria da Silva Santos",
        document: "529.982.247-25",
        email: "maria.santos@example.com.br",
        phone: "11987654321",
      },
    });
    expectStatus(customer, 201);
    const notes = "Cliente atacadista desde 2019; prefere contato por e-mail. ".repeat(4).trim();

    const set = await adminJson("customers", "set-notes", customer.body.id, "--notes", notes, "--tags", "vip,atacado");
    expect(set).toEqual({ customerId: customer.body.id, notes, tags: ["vip", "atacado"] });

    const shown = await adminText("customers", "notes", customer.body.id);
    expect(shown).toMatch(/^tags\s+vip, atacado$/m);
    expect(shown.split("\n").length).toBeGreaterThan(3);
    expect(shown.replace(/\s+/g, " ")).toContain(notes.replace(/\s+/g, " "));
  });
});

describe("admin simulate and clock", { timeout: processTimeout }, () => {
  test("when a production charge is paid, disputed and closed, then each step shows the transaction", async () => {
    const { liveKey } = await server.newAccount({ releasePeriodDays: 0 });
    const charge = await newCharge(liveKey ?? "", 10_000);

    const paid = await adminText("simulate", "pay", charge.id);
    expect(paid).toMatch(/^status\s+PAID$/m);

    const disputed = await adminJson("simulate", "dispute", charge.id, "--amount", "4000");
    expect(disputed.dispute).toMatchObject({ status: "OPEN", amountCents: 4000 });

    const closed = await adminText("simulate", "close-dispute", disputed.dispute.id, "--outcome", "LOST");
    expect(closed).toMatch(/^dispute\.status\s+LOST$/m);
  });

  test("when a production withdrawal is settled partly, then the amounts paid and returned show", async () => {
    const { liveKey } = await server.newAccount({ releasePeriodDays: 0 });
    const key = liveKey ?? "";
    const charge = await newCharge(key, 10_000);
    await adminJson("simulate", "pay", charge.id);
    const w = await api(key).POST("/api/v1/withdrawals", {
      body: { amountCents: 5000, pixKey: "52998224725", pixKeyType: "CPF" },
    });
    expectStatus(w, 201);

    const settled = await adminJson("simulate", "settle", w.body.id, "--outcome", "PARTIALLY_PAID", "--paid", "3000");
    expect(settled).toMatchObject({ status: "PARTIALLY_PAID", paidAmountCents: 3000 });
    const again = await admin("simulate", "settle", w.body.id, "--outcome", "FAILED", "--failure-reason", "x");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("REQUEST_ERROR");
  });

  test("when the clock is read and advanced, then it moves by the seconds given", async () => {
    const before = await adminText("clock", "get");
    expect(before).toMatch(/^now\s+\d{4}-\d\d-\d\dT/);
    const from = server.clock.now().getTime();
    const moved = await adminJson("clock", "advance", "60");
    expect(new Date(moved.now).getTime() - from).toBe(60_000);
  });
});

describe("admin listen", { timeout: processTimeout }, () => {
  test("when listen runs as a process with --json, then it forwards a new event signed and prints a JSON line", async () => {
    const local = await startReceiver([204]);
    const { received } = local;
    try {
      const { account, testKey } = await server.newAccount();
      const listening = await startAdmin(
        ["--json", "listen", "--account", account.id, "--forward-to", local.url, "--interval", "50"].concat([
          "--stop-after",
          "1",
        ]),
        { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken },
        "Segredo de assinatura",
      );
      const charge = await newCharge(testKey);
      await pay(testKey, charge.id);
      const result = await Promise.race([
        listening.done,
        new Promise<never>((_, reject) => setTimeout(() => (listening.kill(), reject(new Error("timeout"))), 10_000)),
      ]);

      expect(result.code).toBe(0);
      const secret = /Segredo de assinatura \(webhook-signature\): (\S+)/.exec(result.stderr)?.[1] ?? "";
      const event = verifyWebhook(
        received[0]?.body ?? "",
        (received[0]?.headers ?? {}) as Record<string, string>,
        secret,
      );
      expect((event.data.object as { id: string }).id).toBe(charge.id);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: "transaction.paid", status: "204" });
    } finally {
      await local.close();
    }
  });
});

describe("admin text output", () => {
  test("when a table is wider than 100 columns, then long cells are cut with … and ids stay whole", () => {
    const id = "acc_0123456789ABCDEFGHIJ";
    const out = table(
      [{ id, name: "N".repeat(80), ownerEmail: `${"e".repeat(60)}@x.example` }],
      ["id", "name", "ownerEmail"],
    );
    expect(widestLine(out)).toBeLessThanOrEqual(100);
    expect(out).toContain(id);
    expect(out).toContain("…");
  });

  test("when a record value is long, then it wraps, except a secret which stays whole", () => {
    const secret = `whsec_${"s".repeat(120)}`;
    const out = record({ url: `https://x.example/${"p/".repeat(80)}`, secret }, ["url", "secret"]);
    const lines = out.split("\n");
    expect(lines.filter((l) => l.startsWith("url") || l.startsWith(" ")).every((l) => l.length <= 100)).toBe(true);
    expect(lines.length).toBeGreaterThan(2);
    expect(out).toContain(secret);
  });

  test("when a certificate's fingerprint is wider than the column, then it breaks between its bytes", () => {
    const bytes = Array.from({ length: 32 }, (_, i) =>
      ((i * 37 + 11) % 256).toString(16).toUpperCase().padStart(2, "0"),
    );
    const fingerprint = bytes.join(":");
    const out = record({ certificateFingerprint: fingerprint }, ["certificateFingerprint"]);
    const lines = out.split("\n").map((l) => l.trim().split(/\s+/).at(-1) ?? "");
    expect(lines.length).toBeGreaterThan(1);
    // Every line but the last ends after a colon; put back together it is the fingerprint.
    for (const line of lines.slice(0, -1)) expect(line.endsWith(":"), line).toBe(true);
    expect(lines.join("")).toBe(fingerprint);
  });
});
