/**
 * The partner commands of the CLI (`listen --forward-to`, `trigger <event>`) with only an API key
 * (`listen` as a process, stopped by a signal or `--stop-after`; `trigger` in this process, and as a
 * process where the exit code or help on its streams is the point), against a real test server;
 * and the acceptance of the partner experience: every event kind triggered while `listen` forwards
 * it, verified, and the partner client riding out a restart.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createPixClient, verifyWebhook } from "../../../client/src/index.js";
import { eventTypes } from "../../src/cli/commands/trigger.js";
import { defaultPermissions } from "../../src/domain/accounts/index.js";
import { bodyOf, byId, chargeBody, publicApi, startTestServer, type TestServer } from "../harness.js";
import { runAdmin, runAdminProcess, startAdmin, widestLine } from "../support/admin-process.js";
import { type Received, startReceiver } from "../support/receiver.js";

/** Tests that start several CLI processes: generous on a busy machine. */
const processTimeout = 120_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** The CLI with only an API key (no operator token in its environment). */
const partner = (key: string, ...args: string[]) =>
  runAdmin(args, { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: key, ADMIN_TOKEN: undefined });

/** The account's events (the first hundred, or those of one type), 200 or the test fails. */
const events = async (key: string, type?: (typeof eventTypes)[number]) =>
  (
    await bodyOf(
      publicApi(server.baseUrl, { key }).GET("/api/v1/events", { params: { query: type ? { type } : { limit: 100 } } }),
      200,
    )
  ).data;
/** A test charge made through the server at `baseUrl` and paid in the sandbox (each step or the test fails). */
async function paidCharge(baseUrl: string, key: string) {
  const api = publicApi(baseUrl, { key });
  const charge = await bodyOf(api.POST("/api/v1/charges/pix", { body: chargeBody() }), 201);
  await bodyOf(api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
  return charge;
}
/** The account's transactions through the server at `baseUrl`, 200 or the test fails. */
const transactions = async (baseUrl: string, key: string) =>
  (await bodyOf(publicApi(baseUrl, { key }).GET("/api/v1/transactions", { params: { query: { limit: 100 } } }), 200))
    .data;

/** Waits until `check` holds, polling; fails after `ms`. */
async function eventually(check: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const verified = (r: Received, secret: string) =>
  verifyWebhook(r.body, r.headers as Record<string, string>, secret) as { id: string; type: string };

describe("partner acceptance: only a test key", { timeout: processTimeout }, () => {
  test("when each kind is triggered while listen forwards, then the events list and the receiver get every kind, verified", async () => {
    const { testKey } = await server.newAccount();
    expect(await events(testKey)).toEqual([]);
    const local = await startReceiver([204]);
    const listening = await startAdmin(
      ["--json", "listen", "--forward-to", local.url, "--interval", "50"],
      { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: testKey, ADMIN_TOKEN: undefined },
      "Segredo de assinatura",
    );
    try {
      for (const kind of eventTypes) {
        const run = await partner(testKey, "--json", "trigger", kind);
        expect(run.code, `${kind}: ${run.stderr}`).toBe(0);
        const out = JSON.parse(run.stdout) as { event: string; created: { id: string }[] };
        expect(out.event).toBe(kind);
        const ids = out.created.map((c) => c.id);
        const listed = await events(testKey, kind);
        const objects = listed.map((e) => (e.data.object as { id: string }).id);
        expect(
          objects.some((id) => ids.includes(id)),
          `${kind} among ${JSON.stringify(ids)}`,
        ).toBe(true);
      }
      const all = await events(testKey);
      // Listen prints an event's line once the receiver has answered: the receiver's count alone
      // can be ahead of the output by the last line.
      const printed = () => listening.output().stdout.split("\n").filter(Boolean).length;
      await eventually(() => local.received.length >= all.length && printed() >= all.length);
      listening.kill();
      const result = await listening.done;
      const secret = /Segredo de assinatura \(webhook-signature\): (\S+)/.exec(result.stderr)?.[1] ?? "";
      const got = local.received.map((r) => verified(r, secret));
      expect(new Set(got.map((e) => e.type))).toEqual(new Set(eventTypes));
      // Each once, oldest first: the same ids as the list, in reverse.
      expect(got.map((e) => e.id)).toEqual(all.map((e) => e.id).reverse());
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; status: string });
      expect(lines).toHaveLength(all.length);
      expect(lines.every((l) => l.status === "204")).toBe(true);
    } finally {
      listening.kill();
      await local.close();
    }
  });

  test("when the server restarts on the same port and store, then a create-charge call in the gap is retried with one key and makes one charge", async () => {
    const restartable = await startTestServer();
    const port = Number(new URL(restartable.baseUrl).port);
    const { testKey } = await restartable.newAccount();
    const keys: string[] = [];
    const outcomes: string[] = [];
    const client = createPixClient({
      apiKey: testKey,
      baseUrl: restartable.baseUrl,
      maxRetries: 6,
      retryBackoff: { initialDelayMs: 200, maxDelayMs: 400 },
      fetch: async (request) => {
        keys.push(request.headers.get("idempotency-key") ?? "");
        try {
          const res = await fetch(request);
          outcomes.push(String(res.status));
          return res;
        } catch (error) {
          outcomes.push("network error");
          throw error;
        }
      },
    });
    await restartable.close();
    let restarted: TestServer | undefined;
    try {
      const pending = client.POST("/api/v1/charges/pix", { body: chargeBody() as never });
      await eventually(() => outcomes.includes("network error"));
      restarted = await startTestServer({ port, store: restartable.store, clock: restartable.clock });
      const { data, response } = await pending;

      expect(response.status).toBe(201);
      expect(outcomes[0]).toBe("network error");
      expect(outcomes.at(-1)).toBe("201");
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).not.toBe("");
      const list = await transactions(restarted.baseUrl, testKey);
      expect(list.map((t) => t.id)).toEqual([data?.id]);
    } finally {
      await restarted?.close();
    }
  });
});

describe("partner listen", { timeout: processTimeout }, () => {
  test("when the receiver answers 500 first, then the forward is retried and delivered", async () => {
    const { testKey } = await server.newAccount();
    const local = await startReceiver([500, 500, 204]);
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    try {
      const listening = await startAdmin(
        ["listen", "--forward-to", local.url, "--secret", secret, "--interval", "50", "--stop-after", "1"],
        { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: testKey, ADMIN_TOKEN: undefined },
        "Encaminhando",
      );
      const charge = await paidCharge(server.baseUrl, testKey);
      const result = await listening.done;

      expect(result.code, result.stderr).toBe(0);
      expect(local.received).toHaveLength(3);
      expect(result.stderr).toContain("500, tentando de novo (tentativa 2 de 4)");
      const ids = local.received.map((r) => verified(r, secret).id);
      expect(new Set(ids).size).toBe(1);
      expect(result.stdout).toMatch(new RegExp(`transaction\\.paid  ${charge.id}  → 204 \\(tentativa 3\\)`));
      expect(widestLine(result.stdout)).toBeLessThanOrEqual(100);
    } finally {
      await local.close();
    }
  });

  test("when the receiver cannot be reached, then listen gives up after --retries and prints the error code", async () => {
    const { testKey } = await server.newAccount();
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise((r) => closed.close(r));
    const listening = await startAdmin(
      ["listen", "--forward-to", url, "--retries", "1", "--interval", "50", "--stop-after", "1"],
      { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: testKey, ADMIN_TOKEN: undefined },
      "Segredo de assinatura",
    );
    const run = await partner(testKey, "trigger", "transaction.paid");
    expect(run.code, run.stderr).toBe(0);
    const result = await listening.done;

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}transaction\.paid {2}txn_\w+ {2}→ ECONNREFUSED \(tentativa 2\)\n$/,
    );
  });

  test("when events were there before listen started and --events filters, then only new events of those kinds are forwarded", async () => {
    const { testKey } = await server.newAccount();
    const old = await partner(testKey, "trigger", "transaction.paid");
    expect(old.code, old.stderr).toBe(0);
    const local = await startReceiver([204]);
    try {
      const listening = await startAdmin(
        ["--json", "listen", "--forward-to", local.url, "--events", "refund.failed", "--interval", "50"].concat([
          "--stop-after",
          "1",
        ]),
        { PIX_ADMIN_URL: server.baseUrl, PIX_API_KEY: testKey, ADMIN_TOKEN: undefined },
        "Segredo de assinatura",
      );
      const fresh = await partner(testKey, "trigger", "refund.failed");
      expect(fresh.code, fresh.stderr).toBe(0);
      const result = await listening.done;

      expect(result.code, result.stderr).toBe(0);
      expect(local.received).toHaveLength(1);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: "refund.failed", status: "204", attempts: 1 });
    } finally {
      await local.close();
    }
  });

  test("when the server restarts while listen runs, then it keeps polling and forwards the event made after", async () => {
    const first = await startTestServer();
    const port = Number(new URL(first.baseUrl).port);
    const { testKey } = await first.newAccount();
    const local = await startReceiver([204]);
    let second: TestServer | undefined;
    try {
      const listening = await startAdmin(
        ["listen", "--forward-to", local.url, "--interval", "50", "--stop-after", "1"],
        { PIX_ADMIN_URL: first.baseUrl, PIX_API_KEY: testKey, ADMIN_TOKEN: undefined },
        "Segredo de assinatura",
      );
      await first.close();
      // Longer than the client's own retries of a GET (0.3 s + 0.6 s): a poll does fail.
      await new Promise((r) => setTimeout(r, 2_000));
      second = await startTestServer({ port, store: first.store, clock: first.clock });
      const charge = await paidCharge(second.baseUrl, testKey);
      const result = await listening.done;

      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("a consulta falhou (fetch failed), tentando de novo");
      expect(result.stdout).toContain(`transaction.paid  ${charge.id}  → 204`);
    } finally {
      await second?.close();
      await local.close();
    }
  });

  test("when --events names an unknown kind, then listen exits non-zero and names it", async () => {
    const run = await partner("svc_test_x", "listen", "--forward-to", "http://127.0.0.1:1/", "--events", "nope");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("tipo de evento desconhecido: nope");
  });
});

describe("partner trigger", { timeout: processTimeout }, () => {
  test("when the key is a production key, then trigger refuses before calling anything", async () => {
    const { liveKey } = await server.newAccount();
    const run = await partner(liveKey ?? "", "trigger", "transaction.paid");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("trigger só funciona no modo de teste e esta é uma chave de produção");
    expect(await transactions(server.baseUrl, liveKey ?? "")).toEqual([]);
  });

  test("when transaction.paid is triggered with --due-date 10, then a charge with a due date is paid 10 days late, with its fine and interest", async () => {
    const { testKey } = await server.newAccount();

    const run = await partner(testKey, "--json", "trigger", "transaction.paid", "--due-date", "10");
    const [charge] = await transactions(server.baseUrl, testKey);

    expect(run.code, run.stderr).toBe(0);
    expect(charge?.status).toBe("PAID");
    // R$ 200,00: 2 % fine (400) and 1 % a month for 10 days (200,00 × 1 % ÷ 30 × 10 = 0,6667 → 67).
    expect(charge?.dueDateCharge?.amountDue).toMatchObject({
      daysLate: 10,
      fineCents: 400,
      interestCents: 67,
      finalCents: 20467,
    });
    expect(JSON.parse(run.stdout)).toMatchObject({ event: "transaction.paid", created: [{ id: charge?.id }] });
  });

  test("when the service answers 503 to a POST once, then trigger sends it again with the same key and acts once", async () => {
    const { testKey } = await server.newAccount();
    const seen: { method: string; path: string; key: string }[] = [];
    let failed = false;
    const proxy = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const key = String(req.headers["idempotency-key"] ?? "");
        seen.push({ method: req.method ?? "", path: req.url ?? "", key });
        if (req.url === "/api/v1/charges/pix" && !failed) {
          failed = true;
          res.writeHead(503, { "content-type": "application/json" });
          res.end(JSON.stringify({ code: "SERVICE_UNAVAILABLE", message: "Serviço indisponível." }));
          return;
        }
        const headers: Record<string, string> = { "x-api-key": testKey };
        if (key) headers["idempotency-key"] = key;
        if (req.headers.accept) headers.accept = req.headers.accept; // the CLI's GET / asks for JSON
        if (body) headers["content-type"] = "application/json";
        void fetch(`${server.baseUrl}${req.url ?? ""}`, {
          method: req.method ?? "GET",
          headers,
          body: body || undefined,
        })
          .then(async (r) => {
            res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
            res.end(await r.text());
          })
          .catch(() => res.writeHead(502).end());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const run = await runAdmin(["trigger", "transaction.paid"], {
        PIX_ADMIN_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        PIX_API_KEY: testKey,
        ADMIN_TOKEN: undefined,
      });

      expect(run.code, run.stderr).toBe(0);
      const creates = seen.filter((r) => r.path === "/api/v1/charges/pix");
      expect(creates).toHaveLength(2);
      expect(creates[0]?.key).not.toBe("");
      expect(creates[1]?.key).toBe(creates[0]?.key);
      expect(seen.filter((r) => r.method === "POST").every((r) => r.key !== "")).toBe(true);
      expect(await transactions(server.baseUrl, testKey)).toHaveLength(1);
    } finally {
      proxy.close();
    }
  });

  test("when the key lacks withdrawals:write, then a withdrawal trigger says so", async () => {
    const { addKey } = await server.newAccount();
    const { secret } = await addKey({ permissions: [...defaultPermissions] });
    const run = await partner(secret, "trigger", "withdrawal.paid");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("não tem a permissão withdrawals:write");
  });

  test("when no API key is set, then trigger says which variable is missing", async () => {
    const run = await runAdminProcess(["trigger", "transaction.paid"], {
      PIX_ADMIN_URL: server.baseUrl,
      PIX_API_KEY: undefined,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("PIX_API_KEY não está definida");
  });

  test("when trigger runs with text output, then it prints what it created within 100 columns", async () => {
    const { testKey } = await server.newAccount();
    const run = await partner(testKey, "trigger", "dispute.closed");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Evento dispute\.closed disparado:\n {2}charge\s+txn_\w+\s+PAID\n/);
    expect(run.stdout).toMatch(/dispute\s+dsp_\w+\s+WON/);
    expect(widestLine(run.stdout)).toBeLessThanOrEqual(100);
  });

  test("when PIX_API_KEY is set, then help of the program, listen and trigger names it but never shows the key", async () => {
    const key = "svc_test_do_not_print_me_4242";
    for (const args of [["--help"], ["listen", "--help"], ["trigger", "--help"]]) {
      const run = await runAdminProcess(args, { PIX_API_KEY: key, PIX_ADMIN_URL: "http://127.0.0.1:1" });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("PIX_API_KEY");
      expect(run.stdout).not.toContain(key);
      expect(widestLine(run.stdout)).toBeLessThanOrEqual(100);
    }
  });
});
