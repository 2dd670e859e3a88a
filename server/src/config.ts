/**
 * Every environment variable the server, the webhook worker and the operator CLI read, parsed and
 * validated here and nowhere else. `environment` lists them with their default and meaning: the
 * README's environment table is checked against it by a test, in both directions.
 */
import { z } from "zod";
import { defaultRateLimits, type RateLimits } from "./http/rate-limit.js";

/** One documented variable: the README table row. */
export interface EnvironmentVariable {
  name: string;
  default: string;
  meaning: string;
}

export const environment = [
  { name: "PORT", default: "3000", meaning: "port the server listens on" },
  { name: "HOST", default: "127.0.0.1", meaning: "address the server listens on" },
  {
    name: "PUBLIC_BASE_URL",
    default: "`http://localhost:$PORT`",
    meaning: "where payment-link checkout URLs point; must be `https` in production",
  },
  {
    name: "DATABASE_URL",
    default: "unset (memory)",
    meaning: "PostgreSQL; migrations run at start (`npm run migrate` runs them alone)",
  },
  {
    name: "ADMIN_TOKEN",
    default: "generated per run (off in production)",
    meaning: "bearer token of the operator API `/admin/v1` (at least 24 characters in production); the CLI sends it",
  },
  { name: "PIX_ADMIN_URL", default: "`http://127.0.0.1:3000`", meaning: "the server the operator CLI talks to" },
  {
    name: "PIX_API_KEY",
    default: "unset",
    meaning: "the API key the CLI's partner commands use (`--api-key` overrides it)",
  },
  {
    name: "PIX_MANUAL_CLOCK",
    default: "0",
    meaning: "`1`: a clock that moves only by `POST /admin/v1/clock/advance` (refused in production)",
  },
  {
    name: "PIX_ALLOW_LOCAL_WEBHOOKS",
    default: "0",
    meaning: "`1`: test-mode webhook endpoints may be on loopback (refused in production)",
  },
  {
    name: "PIX_WEBHOOK_WORKER",
    default: "on",
    meaning: "`off`: do not deliver webhooks in this process (run `npm run worker`)",
  },
  {
    name: "PIX_WEBHOOK_CLAIM_SECONDS",
    default: "60",
    meaning: "how long a worker's claim on a delivery lasts before another worker may take it over",
  },
  {
    name: "PIX_CHECKOUT_SECRET",
    default: "random per process",
    meaning: "CSRF secret of the hosted checkout (at least 16 characters); set it when running several machines",
  },
  {
    name: "TRUST_PROXY",
    default: "off",
    meaning: "hop count or comma-separated subnets; decides the client IP for allow-lists and rate limits",
  },
  { name: "RATE_LIMITS", default: "on", meaning: "`off`: local test runs only; refused in production" },
  {
    name: "VALIDATE_RESPONSES",
    default: "`on`, `off` in production",
    meaning: "checks every response against the document before it is sent (a development aid: a mismatch answers 500)",
  },
  {
    name: "WEB_CONCURRENCY",
    default: "1",
    meaning: "server processes on this machine (`node:cluster`); more than 1 needs `DATABASE_URL`",
  },
  {
    name: "SHUTDOWN_TIMEOUT_MS",
    default: "10000",
    meaning: "on SIGTERM/SIGINT, how long in-flight requests and webhook attempts may take before exit",
  },
  { name: "LOG_LEVEL", default: "info", meaning: "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`" },
  {
    name: "LOG_FORMAT",
    default: "`pretty` on a terminal, else `json`",
    meaning: "`json` (one object a line) or `pretty` (readable; never in production)",
  },
  {
    name: "NODE_ENV",
    default: "development",
    meaning: "`production`: turns off response validation and the operator token default, applies the guards above",
  },
] as const satisfies readonly EnvironmentVariable[];

type VariableName = (typeof environment)[number]["name"];

/** A configuration refused: one line per problem, in Portuguese, naming the variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuração inválida:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const flag = (on: string, off: string) =>
  z.enum([on, off], { error: `use ${on} ou ${off}` }).transform((value) => value === on);
const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: "deve ser um número inteiro" })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `mínimo ${min}` })
        .max(max, { error: `máximo ${max}` }),
    );
const httpUrl = z.url({ protocol: /^https?$/, error: "deve ser um endereço http:// ou https://" });

const schema = z.object({
  NODE_ENV: z.string().default("development"),
  PORT: integer(0, 65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  PUBLIC_BASE_URL: httpUrl.optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { error: "deve começar com postgres:// ou postgresql://" })
    .optional(),
  ADMIN_TOKEN: z.string().optional(),
  PIX_ADMIN_URL: httpUrl.default("http://127.0.0.1:3000"),
  PIX_API_KEY: z.string().optional(),
  PIX_MANUAL_CLOCK: flag("1", "0").default(false),
  PIX_ALLOW_LOCAL_WEBHOOKS: flag("1", "0").default(false),
  PIX_WEBHOOK_WORKER: flag("on", "off").default(true),
  PIX_WEBHOOK_CLAIM_SECONDS: integer(1, 86_400).optional(),
  PIX_CHECKOUT_SECRET: z.string().min(16, { error: "mínimo 16 caracteres" }).optional(),
  TRUST_PROXY: z.string().optional(),
  RATE_LIMITS: flag("on", "off").default(true),
  VALIDATE_RESPONSES: flag("on", "off").optional(),
  WEB_CONCURRENCY: integer(1, 64).default(1),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000).default(10_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
} satisfies Record<VariableName, z.ZodType>);

type Env = z.output<typeof schema>;

/**
 * Parses the variables `names` (the others take their defaults unread); empty values count as
 * unset. Each process validates only what it reads.
 */
function parseEnv(env: NodeJS.ProcessEnv, names: readonly VariableName[]): Env {
  const input = Object.fromEntries(names.map((name) => [name, env[name] === "" ? undefined : env[name]]));
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = String(issue.path[0]);
        return `${name}=${JSON.stringify(env[name])}: ${issue.message}`;
      }),
    );
  }
  return result.data;
}

/** Express `trust proxy` from `TRUST_PROXY`: unset/false = off, a number = hops, else subnets. */
function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface ServerConfig {
  port: number;
  host: string;
  publicBaseUrl: string;
  production: boolean;
  rateLimits: RateLimits | "off";
  /** Whether responses are checked against the document (default: outside production). */
  validateResponses: boolean;
  trustProxy: boolean | number | string[];
  databaseUrl: string | undefined;
  /** Unset: the server makes one per run outside production. */
  adminToken: string | undefined;
  manualClock: boolean;
  allowLocalWebhooks: boolean;
  webhookWorker: boolean;
  webhookClaimSeconds: number | undefined;
  checkoutSecret: string | undefined;
  webConcurrency: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  logFormat: "json" | "pretty" | undefined;
}

const cliVariables = ["PIX_ADMIN_URL", "PIX_API_KEY"];
const serverVariables = environment.map((v) => v.name).filter((name) => !cliVariables.includes(name));

/** The server's configuration; refuses (ConfigError) invalid values and what production forbids. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const e = parseEnv(env, serverVariables);
  const production = e.NODE_ENV === "production";
  const problems: string[] = [];
  if (production) {
    if (!e.RATE_LIMITS) problems.push("RATE_LIMITS=off é só para testes locais: recusado com NODE_ENV=production");
    if (e.PIX_MANUAL_CLOCK) problems.push("PIX_MANUAL_CLOCK=1 é recusado com NODE_ENV=production");
    if (e.PIX_ALLOW_LOCAL_WEBHOOKS) problems.push("PIX_ALLOW_LOCAL_WEBHOOKS=1 é recusado com NODE_ENV=production");
    if (!e.PUBLIC_BASE_URL?.startsWith("https://")) {
      problems.push("PUBLIC_BASE_URL deve ser um endereço https:// com NODE_ENV=production");
    }
    if (e.ADMIN_TOKEN !== undefined && e.ADMIN_TOKEN.length < 24) {
      problems.push("ADMIN_TOKEN deve ter ao menos 24 caracteres com NODE_ENV=production");
    }
    if (e.LOG_FORMAT === "pretty") problems.push("LOG_FORMAT=pretty é recusado com NODE_ENV=production");
  }
  if (e.WEB_CONCURRENCY > 1 && !e.DATABASE_URL) {
    problems.push(
      `WEB_CONCURRENCY=${e.WEB_CONCURRENCY} precisa de DATABASE_URL: cada processo teria seu próprio armazenamento em memória`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`,
    production,
    rateLimits: e.RATE_LIMITS ? defaultRateLimits : "off",
    validateResponses: e.VALIDATE_RESPONSES ?? !production,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    databaseUrl: e.DATABASE_URL,
    adminToken: e.ADMIN_TOKEN,
    manualClock: e.PIX_MANUAL_CLOCK,
    allowLocalWebhooks: e.PIX_ALLOW_LOCAL_WEBHOOKS,
    webhookWorker: e.PIX_WEBHOOK_WORKER,
    webhookClaimSeconds: e.PIX_WEBHOOK_CLAIM_SECONDS,
    checkoutSecret: e.PIX_CHECKOUT_SECRET,
    webConcurrency: e.WEB_CONCURRENCY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
  };
}

export type WorkerConfig = Pick<
  ServerConfig,
  | "production"
  | "databaseUrl"
  | "allowLocalWebhooks"
  | "webhookClaimSeconds"
  | "shutdownTimeoutMs"
  | "logLevel"
  | "logFormat"
>;

/** `npm run worker`: only what the delivery worker reads. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const e = parseEnv(env, [
    "NODE_ENV",
    "DATABASE_URL",
    "PIX_ALLOW_LOCAL_WEBHOOKS",
    "PIX_WEBHOOK_CLAIM_SECONDS",
    "SHUTDOWN_TIMEOUT_MS",
    "LOG_LEVEL",
    "LOG_FORMAT",
  ]);
  const production = e.NODE_ENV === "production";
  if (production && e.PIX_ALLOW_LOCAL_WEBHOOKS) {
    throw new ConfigError(["PIX_ALLOW_LOCAL_WEBHOOKS=1 é recusado com NODE_ENV=production"]);
  }
  return {
    production,
    databaseUrl: e.DATABASE_URL,
    allowLocalWebhooks: e.PIX_ALLOW_LOCAL_WEBHOOKS,
    webhookClaimSeconds: e.PIX_WEBHOOK_CLAIM_SECONDS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
  };
}

/** The CLI: the server it talks to, the operator token and the partner API key (flags override them). */
export function loadCliConfig(env: NodeJS.ProcessEnv = process.env): {
  adminUrl: string;
  adminToken?: string;
  apiKey?: string;
} {
  const e = parseEnv(env, ["PIX_ADMIN_URL", "ADMIN_TOKEN", "PIX_API_KEY"]);
  return {
    adminUrl: e.PIX_ADMIN_URL,
    ...(e.ADMIN_TOKEN ? { adminToken: e.ADMIN_TOKEN } : {}),
    ...(e.PIX_API_KEY ? { apiKey: e.PIX_API_KEY } : {}),
  };
}

/** Runs `load`; a ConfigError ends the process with its message (no stack trace) and exit code 1. */
export function configOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
