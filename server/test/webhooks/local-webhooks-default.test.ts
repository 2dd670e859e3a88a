/**
 * Loopback webhook endpoints (issue 33, "Found on the way"): a newcomer's `npm start` accepts a
 * test-mode endpoint on this machine with no setting, and says so in its banner;
 * `PIX_ALLOW_LOCAL_WEBHOOKS=0` and NODE_ENV=production refuse it, and say that instead. Real server
 * processes (the build `npm start` runs), as a newcomer starts them;
 * docs/decisions/0042-unknown-query-parameters-and-a-newcomers-first-hour.md.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, test } from "vitest";
import { byId, type ErrorBody, expectStatus, operatorApi } from "../harness.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
});

/** A server process with `env`, once its banner is out (its webhooks line among it). */
async function started(name: string, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({
    name,
    // Production wants an https PUBLIC_BASE_URL and a long operator token; the token drives the test.
    env: { PUBLIC_BASE_URL: "https://pix.example.test", ADMIN_TOKEN: operatorToken, ...env },
    track: (stop) => void stops.push(stop),
  });
  const deadline = Date.now() + 20_000;
  while (!/^Webhooks .*$/m.test(server.output()) && Date.now() < deadline) await sleep(50);
  return server;
}

const operatorToken = `adm_${"l".repeat(32)}`;

/** A merchant account on `server` and a test-mode endpoint on this machine, through the operator API. */
async function loopbackEndpoint(server: ServerProcess) {
  const operator = operatorApi(server.baseUrl, { token: operatorToken });
  const account = await operator.POST("/admin/v1/accounts", {
    body: { name: "Loja Exemplo Ltda", ownerEmail: "dono@loja.example.com.br" },
  });
  expectStatus(account, 201);
  return operator.POST("/admin/v1/accounts/{id}/webhook-endpoints", {
    ...byId(account.body.id),
    body: { url: "http://127.0.0.1:4000/webhook", mode: "test", events: ["transaction.paid"] },
  });
}

const bannerLine = (server: ServerProcess) => /^Webhooks .*$/m.exec(server.output())?.[0] ?? "";

describe("loopback webhook endpoints and the start-up banner", () => {
  test("when npm start runs with no setting, then a test-mode endpoint on 127.0.0.1 is accepted and the banner says so", async () => {
    const server = await started("loopback-default", {});

    const created = await loopbackEndpoint(server);

    expectStatus(created, 201);
    expect(created.body.url).toBe("http://127.0.0.1:4000/webhook");
    expect(bannerLine(server)).toContain("Webhooks de teste podem ir para esta máquina");
    expect(bannerLine(server)).toContain("PIX_ALLOW_LOCAL_WEBHOOKS=0");
  }, 90_000);

  test("when PIX_ALLOW_LOCAL_WEBHOOKS=0, then that endpoint is refused by its url and the banner says public addresses only", async () => {
    const server = await started("loopback-off", { PIX_ALLOW_LOCAL_WEBHOOKS: "0" });

    const refused = await loopbackEndpoint(server);

    expect(refused.status).toBe(400);
    expect((refused.body as ErrorBody).code).toBe("VALIDATION_ERROR");
    expect((refused.body as ErrorBody).errors?.map((e) => e.path)).toEqual(["url"]);
    expect(bannerLine(server)).toContain("Webhooks só para endereços públicos (PIX_ALLOW_LOCAL_WEBHOOKS=0)");
  }, 90_000);

  test("when NODE_ENV=production with no setting, then that endpoint is refused and the banner says loopback is refused in production", async () => {
    const server = await started("loopback-production", { NODE_ENV: "production" });

    const refused = await loopbackEndpoint(server);

    expect(refused.status).toBe(400);
    expect((refused.body as ErrorBody).errors?.map((e) => e.path)).toEqual(["url"]);
    expect(bannerLine(server)).toBe(
      "Webhooks só para endereços públicos: endereços locais (loopback) recusados em produção.",
    );
  }, 90_000);
});
