import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { ConfigError, environmentTable, loadCliConfig, loadConfig, loadWorkerConfig } from "../../src/config.js";

const production = {
  NODE_ENV: "production",
  PUBLIC_BASE_URL: "https://pix.example.com.br",
  MASTER_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}`,
};

/** The ConfigError `load` throws (fails the test when it throws nothing or something else). */
function refusal(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

describe("loadConfig", () => {
  test("when nothing is set, then the documented defaults apply", () => {
    const config = loadConfig({});

    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      publicBaseUrl: "http://localhost:3000",
      production: false,
      trustProxy: false,
      databaseUrl: undefined,
      adminToken: undefined,
      manualClock: false,
      passwordHashCost: "owasp",
      allowLocalWebhooks: true,
      webhookWorker: true,
      webConcurrency: 1,
      shutdownTimeoutMs: 10_000,
      logLevel: "info",
      logFormat: undefined,
    });
  });

  test("when values are set, then they are parsed to their types", () => {
    const config = loadConfig({
      PORT: "8080",
      PIX_MANUAL_CLOCK: "1",
      PIX_WEBHOOK_WORKER: "off",
      PIX_WEBHOOK_CLAIM_SECONDS: "30",
      TRUST_PROXY: "10.0.0.0/8, 192.168.0.0/16",
      SHUTDOWN_TIMEOUT_MS: "2500",
      WEB_CONCURRENCY: "2",
      DATABASE_URL: "postgres://pix@127.0.0.1:5432/pix",
    });

    expect(config).toMatchObject({
      port: 8080,
      publicBaseUrl: "http://localhost:8080",
      manualClock: true,
      webhookWorker: false,
      webhookClaimSeconds: 30,
      trustProxy: ["10.0.0.0/8", "192.168.0.0/16"],
      shutdownTimeoutMs: 2500,
      webConcurrency: 2,
    });
  });

  test("when a variable is empty, then it counts as unset", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "", LOG_LEVEL: "" })).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      logLevel: "info",
    });
  });

  test.each([
    { name: "PORT not a number", env: { PORT: "abc" }, variable: "PORT" },
    { name: "PORT out of range", env: { PORT: "70000" }, variable: "PORT" },
    { name: "a flag with another value", env: { PIX_MANUAL_CLOCK: "yes" }, variable: "PIX_MANUAL_CLOCK" },
    { name: "RATE_LIMITS misspelt", env: { RATE_LIMITS: "of" }, variable: "RATE_LIMITS" },
    { name: "an unknown log level", env: { LOG_LEVEL: "verbose" }, variable: "LOG_LEVEL" },
    { name: "DATABASE_URL not PostgreSQL", env: { DATABASE_URL: "mysql://x" }, variable: "DATABASE_URL" },
    { name: "PUBLIC_BASE_URL not a URL", env: { PUBLIC_BASE_URL: "pix.example" }, variable: "PUBLIC_BASE_URL" },
    {
      // A recurrence's location (field 80) would not fit its 77 characters: creating one answered 500.
      name: "PUBLIC_BASE_URL too long for a recurrence's BR Code",
      env: { PUBLIC_BASE_URL: "https://pagamentos.minha-loja-exemplo.com.br/servicos/pix" },
      variable: "PUBLIC_BASE_URL",
    },
    { name: "WEB_CONCURRENCY zero", env: { WEB_CONCURRENCY: "0" }, variable: "WEB_CONCURRENCY" },
    { name: "a short checkout secret", env: { PIX_CHECKOUT_SECRET: "abc" }, variable: "PIX_CHECKOUT_SECRET" },
  ])("when $name, then the configuration is refused naming the variable", ({ env, variable }) => {
    const error = refusal(() => loadConfig(env));

    expect(error.message).toMatch(/^Configuração inválida:/);
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toContain(variable);
  });

  test.each([
    {
      variable: "MASTER_KEYS",
      value: "k1:BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=;k2:CQkJCQkJCQkJ",
      secret: "BwcHBwcH",
    },
    { variable: "PIX_CHECKOUT_SECRET", value: "short-secret-15", secret: "short-secret" },
    { variable: "DATABASE_URL", value: "pg://app:DbPassw0rd!@db.internal:5432/pix", secret: "DbPassw0rd" },
    { variable: "SMTP_URL", value: "smtp+starttls://mailer:Sup3rS3cret@smtp.example.com:587", secret: "Sup3rS3cret" },
  ])(
    "when $variable is refused, then the message names it without showing its secret",
    ({ variable, value, secret }) => {
      const error = refusal(() => loadConfig({ [variable]: value }));

      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(new RegExp(`^${variable}=`));
      expect(error.message).not.toContain(secret);
    },
  );

  test("when an address with credentials is refused, then its host still shows, its credentials masked", () => {
    const error = refusal(() => loadConfig({ DATABASE_URL: "pg://app:DbPassw0rd!@db.internal:5432/pix" }));

    expect(error.problems[0]).toContain('"pg://***@db.internal:5432/pix"');
  });

  test("when PUBLIC_BASE_URL is as long as a recurrence's location allows, then it is accepted", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: "https://pix.minha-loja-exemplo.com.br" }).publicBaseUrl).toBe(
      "https://pix.minha-loja-exemplo.com.br",
    );
  });

  test("when several values are wrong, then every one is reported at once", () => {
    const error = refusal(() => loadConfig({ PORT: "x", LOG_LEVEL: "loud" }));

    expect(error.problems.map((p) => p.split("=")[0])).toEqual(["PORT", "LOG_LEVEL"]);
  });

  test.each([
    { name: "RATE_LIMITS=off", env: { RATE_LIMITS: "off" }, variable: "RATE_LIMITS" },
    { name: "PIX_MANUAL_CLOCK=1", env: { PIX_MANUAL_CLOCK: "1" }, variable: "PIX_MANUAL_CLOCK" },
    {
      name: "PIX_PASSWORD_HASH_COST=minimal",
      env: { PIX_PASSWORD_HASH_COST: "minimal" },
      variable: "PIX_PASSWORD_HASH_COST",
    },
    {
      name: "PIX_ALLOW_LOCAL_WEBHOOKS=1",
      env: { PIX_ALLOW_LOCAL_WEBHOOKS: "1" },
      variable: "PIX_ALLOW_LOCAL_WEBHOOKS",
    },
    {
      name: "an http PUBLIC_BASE_URL",
      env: { PUBLIC_BASE_URL: "http://pix.example.com.br" },
      variable: "PUBLIC_BASE_URL",
    },
    { name: "no PUBLIC_BASE_URL", env: { PUBLIC_BASE_URL: "" }, variable: "PUBLIC_BASE_URL" },
    { name: "a short ADMIN_TOKEN", env: { ADMIN_TOKEN: "adm_short" }, variable: "ADMIN_TOKEN" },
    { name: "pretty logs", env: { LOG_FORMAT: "pretty" }, variable: "LOG_FORMAT" },
  ])("when NODE_ENV=production with $name, then the configuration is refused", ({ env, variable }) => {
    const error = refusal(() => loadConfig({ ...production, ...env }));

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toContain(variable);
    expect(error.problems[0]).toContain("NODE_ENV=production");
  });

  test("when NODE_ENV=production with an https PUBLIC_BASE_URL, then it is accepted", () => {
    const config = loadConfig({ ...production, ADMIN_TOKEN: "adm_" + "x".repeat(32) });

    expect(config.production).toBe(true);
    expect(config.publicBaseUrl).toBe("https://pix.example.com.br");
  });

  test("when PIX_ALLOW_LOCAL_WEBHOOKS is unset, then loopback endpoints are allowed outside production only, for the server and the worker", () => {
    const productionEnv = { ...production, ADMIN_TOKEN: "adm_" + "x".repeat(32) };

    expect(loadConfig({}).allowLocalWebhooks).toBe(true);
    expect(loadWorkerConfig({}).allowLocalWebhooks).toBe(true);
    expect(loadConfig(productionEnv).allowLocalWebhooks).toBe(false);
    expect(loadWorkerConfig({ NODE_ENV: "production", MASTER_KEYS: production.MASTER_KEYS }).allowLocalWebhooks).toBe(
      false,
    );
    expect(loadConfig({ PIX_ALLOW_LOCAL_WEBHOOKS: "0" }).allowLocalWebhooks).toBe(false);
    expect(loadWorkerConfig({ PIX_ALLOW_LOCAL_WEBHOOKS: "0" }).allowLocalWebhooks).toBe(false);
    expect(loadConfig({ PIX_ALLOW_LOCAL_WEBHOOKS: "1" }).allowLocalWebhooks).toBe(true);
    expect(loadConfig({ ...productionEnv, PIX_ALLOW_LOCAL_WEBHOOKS: "0" }).allowLocalWebhooks).toBe(false);
  });

  test("when WEB_CONCURRENCY is above 1 on the memory store, then the configuration is refused", () => {
    const error = refusal(() => loadConfig({ WEB_CONCURRENCY: "2" }));

    expect(error.problems[0]).toContain("WEB_CONCURRENCY=2 precisa de DATABASE_URL");
  });
});

describe("loadWorkerConfig and loadCliConfig", () => {
  test("when a variable only the server reads is invalid, then the worker and the CLI still start", () => {
    const env = { PORT: "abc", DATABASE_URL: "postgres://pix@127.0.0.1/pix", PIX_WEBHOOK_CLAIM_SECONDS: "90" };

    expect(loadWorkerConfig(env)).toMatchObject({ databaseUrl: env.DATABASE_URL, webhookClaimSeconds: 90 });
    expect(loadCliConfig(env)).toEqual({ adminUrl: "http://127.0.0.1:3000" });
  });

  test.each([
    { env: { PIX_ALLOW_LOCAL_WEBHOOKS: "1" }, variable: "PIX_ALLOW_LOCAL_WEBHOOKS" },
    { env: { LOG_FORMAT: "pretty" }, variable: "LOG_FORMAT" },
  ])(
    "when the worker gets $variable refused in production, then it is refused as the server refuses it",
    ({ env, variable }) => {
      const error = refusal(() =>
        loadWorkerConfig({ NODE_ENV: "production", MASTER_KEYS: production.MASTER_KEYS, ...env }),
      );

      expect(error.problems).toEqual([refusal(() => loadConfig({ ...production, ...env })).problems[0]]);
      expect(error.message).toContain(variable);
    },
  );

  test("when the worker runs in production without MASTER_KEYS, then it is refused: it opens the endpoints' sealed secrets to sign", () => {
    const error = refusal(() => loadWorkerConfig({ NODE_ENV: "production" }));

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toContain("MASTER_KEYS é obrigatória");
    expect(loadWorkerConfig({ MASTER_KEYS: production.MASTER_KEYS }).masterKeys?.newest.id).toBe("k1");
  });

  test("when PIX_ADMIN_URL is not an http address, then the CLI configuration is refused", () => {
    expect(refusal(() => loadCliConfig({ PIX_ADMIN_URL: "ftp://x" })).problems[0]).toContain("PIX_ADMIN_URL");
    expect(loadCliConfig({ PIX_ADMIN_URL: "https://pix.example", ADMIN_TOKEN: "adm_x" })).toEqual({
      adminUrl: "https://pix.example",
      adminToken: "adm_x",
    });
  });
});

describe("README environment table", () => {
  /** The README's environment table: from its header row to the first line that is not a row. */
  function tableOf(readme: string): string {
    const start = readme.indexOf("| variable | default | meaning |");
    if (start < 0) throw new Error("README has no environment table");
    const lines = readme.slice(start).split("\n");
    return lines
      .slice(
        0,
        lines.findIndex((line) => !line.startsWith("|")),
      )
      .join("\n");
  }
  const readme = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");

  test("when the README lists the environment, then its table is the one the declarations in config.ts make, row for row", () => {
    // On a difference: copy environmentTable()'s text (the expected side below) into docs/configuration.md.
    expect(tableOf(readme)).toBe(environmentTable());
  });

  test("when a README row drifts from its declaration, then the comparison sees it", () => {
    const drifted = readme.replace("| `PORT` | 3000 |", "| `PORT` | 8080 |");

    expect(drifted).not.toBe(readme);
    expect(tableOf(drifted)).not.toBe(environmentTable());
  });

  test("when the server, worker or CLI read the environment, then only the configuration module reads process.env", () => {
    const src = fileURLToPath(new URL("../../src/", import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    const readers = files.filter((file) => readFileSync(join(src, file), "utf8").includes("process.env"));

    expect(files.length).toBeGreaterThan(20);
    expect(readers).toEqual(["config.ts"]);
  });
});
