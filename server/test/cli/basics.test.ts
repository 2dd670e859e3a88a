import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { verifyWebhook } from "../../../client/src/index.js";
import { chargeBody, startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { startReceiver } from "../support/receiver.js";

const run = promisify(execFile);
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Runs the CLI in this process with the server and token on its command line. */
const cli = (...args: string[]) =>
  runAdmin(["--server", server.baseUrl, "--token", testAdminToken, ...args], {
    PIX_ADMIN_URL: undefined,
    ADMIN_TOKEN: undefined,
  });

describe("npm run admin", () => {
  test("when run as a process with PIX_ADMIN_URL and ADMIN_TOKEN, then it prints JSON and exits 0", async () => {
    const tsx = join(process.cwd(), "node_modules/tsx/dist/cli.mjs");
    const { stdout } = await run(
      process.execPath,
      [
        tsx,
        "server/src/cli/main.ts",
        "--json",
        "accounts",
        "create",
        "--name",
        "Loja CLI",
        "--owner-email",
        "cli@loja.example",
      ],
      { env: { ...process.env, PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken } },
    );
    const account = JSON.parse(stdout);
    expect(account).toMatchObject({ name: "Loja CLI", verified: false });
    expect((await server.store.read.accounts.get(account.id))?.ownerEmail).toBe("cli@loja.example");
  });

  test("when the token is wrong, then the process exits non-zero with the API's message", async () => {
    const tsx = join(process.cwd(), "node_modules/tsx/dist/cli.mjs");
    const failed = await run(process.execPath, [tsx, "server/src/cli/main.ts", "accounts", "list"], {
      env: { ...process.env, PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: "adm_wrong" },
    }).catch((e: { code: number; stderr: string }) => e);
    expect("code" in failed && failed.code).toBe(1);
    expect((failed as { stderr: string }).stderr).toContain("401 UNAUTHORIZED");
  });

  test("when accounts are listed, then a readable table shows them", async () => {
    await cli("accounts", "create", "--name", "Padaria Tabela", "--owner-email", "t@p.example", "--verified");
    const { code, stdout } = await cli("accounts", "list");
    expect(code).toBe(0);
    const [header, rule] = stdout.split("\n");
    expect(header).toMatch(/^id\s+name\s+ownerEmail\s+verified/);
    expect(rule).toMatch(/^-+\s+-+/);
    expect(stdout).toContain("Padaria Tabela");
  });

  test("when keys, simulator and clock commands run, then the service changes accordingly", async () => {
    const created = JSON.parse(
      (
        await cli(
          "--json",
          "accounts",
          "create",
          "--name",
          "Loja Sim",
          "--owner-email",
          "s@l.example",
          "--verified",
          "--release-period-days",
          "0",
        )
      ).stdout,
    );
    const key = JSON.parse(
      (
        await cli(
          "--json",
          "keys",
          "create",
          created.id,
          "--name",
          "live",
          "--mode",
          "production",
          "--daily-limit",
          "1000",
        )
      ).stdout,
    );
    expect(key.secret).toMatch(/^svc_/);
    expect(key.dailyWithdrawLimitCents).toBe(1000);
    const listed = await cli("keys", "list", created.id);
    expect(listed.stdout).toContain(key.prefix);
    expect(listed.stdout).not.toContain(key.secret);

    const charge = await fetch(`${server.baseUrl}/api/v1/charges/pix`, {
      method: "POST",
      headers: { "x-api-key": key.secret, "content-type": "application/json" },
      body: JSON.stringify({
        amountCents: 5000,
        description: "Pedido CLI",
        customer: {
          name: "Ana",
          email: "ana@example.com",
          phone: "11987654321",
          documentType: "CPF",
          document: "52998224725",
        },
      }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const paid = await cli("--json", "simulate", "pay", charge.id);
    expect(JSON.parse(paid.stdout).status).toBe("PAID");

    const before = JSON.parse((await cli("--json", "clock", "get")).stdout).now;
    const after = JSON.parse((await cli("--json", "clock", "advance", "3600")).stdout).now;
    expect(new Date(after).getTime() - new Date(before).getTime()).toBe(3_600_000);

    const revoked = JSON.parse((await cli("--json", "keys", "revoke", key.id)).stdout);
    expect(revoked.revokedAt).not.toBeNull();
  });

  test("when the API refuses, then the exit code is 1 and the field errors are printed", async () => {
    const { code, stderr } = await cli("accounts", "create", "--name", "X", "--owner-email", "nope");
    expect(code).toBe(1);
    expect(stderr).toContain("400 VALIDATION_ERROR");
    expect(stderr).toContain("ownerEmail");
  });

  test("when listen runs, then new test events reach the local URL signed with the given secret", async () => {
    const local = await startReceiver([204]);
    const { received } = local;
    try {
      const { account, testKey } = await server.newAccount();
      const old = await fetch(`${server.baseUrl}/api/v1/charges/pix`, {
        method: "POST",
        headers: { "x-api-key": testKey, "content-type": "application/json" },
        body: JSON.stringify(chargeBody()),
      }).then((r) => r.json() as Promise<{ id: string }>);
      await fetch(`${server.baseUrl}/api/v1/sandbox/transactions/${old.id}/pay`, {
        method: "POST",
        headers: { "x-api-key": testKey },
      });
      const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
      const listening = cli(
        "listen",
        "--account",
        account.id,
        "--forward-to",
        local.url,
        "--secret",
        secret,
        "--interval",
        "50",
        "--stop-after",
        "1",
      );
      await new Promise((r) => setTimeout(r, 300));
      const fresh = await fetch(`${server.baseUrl}/api/v1/charges/pix`, {
        method: "POST",
        headers: { "x-api-key": testKey, "content-type": "application/json" },
        body: JSON.stringify(chargeBody()),
      }).then((r) => r.json() as Promise<{ id: string }>);
      await fetch(`${server.baseUrl}/api/v1/sandbox/transactions/${fresh.id}/pay`, {
        method: "POST",
        headers: { "x-api-key": testKey },
      });
      const result = await listening;

      expect(result.code).toBe(0);
      expect(received).toHaveLength(1);
      const event = verifyWebhook(
        received[0]?.body ?? "",
        (received[0]?.headers ?? {}) as Record<string, string>,
        secret,
      );
      expect(event.type).toBe("transaction.paid");
      expect((event.data.object as { id: string }).id).toBe(fresh.id);
      expect(result.stdout).toContain("→ 204");
    } finally {
      await local.close();
    }
  });

  test("when a required option is missing, then commander refuses with a non-zero code", async () => {
    const { code } = await cli("simulate", "settle", "wdr_x");
    expect(code).not.toBe(0);
  });

  test("when a production refund is settled and refunds:write is removed from a key through the CLI, then both take effect", async () => {
    const { liveKey, account } = await server.newAccount();
    const post = (path: string, body?: unknown) =>
      fetch(`${server.baseUrl}${path}`, {
        method: "POST",
        headers: { "x-api-key": liveKey as string, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const ids: string[] = [];
    for (const amountCents of [20_080, 8990]) {
      const charge = await post("/api/v1/charges/pix", chargeBody({ amountCents }));
      expect(JSON.parse((await cli("--json", "simulate", "pay", charge.body.id)).stdout).status).toBe("PAID");
      ids.push(charge.body.id);
    }
    server.clock.advance(86_400);
    const refund = await post(`/api/v1/transactions/${ids[1]}/refunds`, { amountCents: 1000 });

    const settled = await cli("--json", "simulate", "settle-refund", refund.body.id, "--outcome", "COMPLETED");
    const key = (await server.store.read.apiKeys.listByAccount(account.id)).find((k) => k.livemode);
    const updated = await cli("--json", "keys", "update", key?.id ?? "", "--permissions", "transactions:read");
    const refused = await post(`/api/v1/transactions/${ids[1]}/refunds`, { amountCents: 1000 });

    expect(refund.body.status).toBe("PENDING");
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({ id: refund.body.id, status: "COMPLETED" });
    expect(updated.code).toBe(0);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("refunds:write");
  });
});
