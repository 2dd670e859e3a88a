/**
 * Every environment variable the server, the webhook worker and the operator CLI read, declared
 * once in `variables` below (practica.js style): its name, who reads it, the key it gets in the
 * typed configuration, how its text is parsed and validated (with its default), what NODE_ENV=
 * production refuses of it, and its default and meaning as the README's environment table states
 * them. Validation, the configuration types and that table (`environmentTable`, compared with the
 * README by a test) all follow from the declarations; nothing else reads `process.env`.
 */
import * as z from "zod";
import { defaultRateLimits, type RateLimits } from "./domain/core/rate-limits.js";
import { baseAddressFitsRecurrences } from "./domain/core/recurrence-location.js";
import { Keyring, parseMasterKeys } from "./domain/core/secrets.js";

/** The processes that read the environment. */
type Reader = "server" | "worker" | "cli";

/** One variable. `readme` is its README row: the default as a person reads it, and its meaning. */
interface Declaration<K extends string, S extends z.ZodType, R extends readonly Reader[]> {
  /** The property of the typed configuration it becomes. */
  key: K;
  readBy: R;
  /** Parses the text (undefined when unset or empty) into the value, the default applied. */
  parse: S;
  /** With NODE_ENV=production: why this value is refused, or undefined when it is accepted. */
  inProduction?: (value: z.output<S>) => string | undefined;
  /** The value is a secret: a message about it never shows it (`shownValue`). */
  secret?: true;
  readme: { default: string; meaning: string };
}

/** A declaration, typed from its own parser (so `inProduction` sees the parsed value). */
const variable = <const K extends string, S extends z.ZodType, const R extends readonly Reader[]>(
  declaration: Declaration<K, S, R>,
) => declaration;

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
const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** Express `trust proxy` from `TRUST_PROXY`: unset/false = off, a number = hops, else subnets. */
function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === "false" || value === "0") return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const refusedInProduction = (setting: string) => `${setting} é recusado com NODE_ENV=production`;

/** The declarations, in the order of the README's table. */
const variables = {
  PORT: variable({
    key: "port",
    readBy: ["server"],
    parse: integer(0, 65535).default(3000),
    readme: { default: "3000", meaning: "port the server listens on" },
  }),
  HOST: variable({
    key: "host",
    readBy: ["server"],
    parse: z.string().default("127.0.0.1"),
    readme: { default: "127.0.0.1", meaning: "address the server listens on" },
  }),
  PUBLIC_BASE_URL: variable({
    key: "publicBaseUrl",
    readBy: ["server"],
    // Unset: `http://localhost:$PORT`, filled in by loadConfig. Its host and path become the
    // location a recurrence's BR Code carries (field 80, at most 77 characters).
    parse: httpUrl
      .refine(baseAddressFitsRecurrences, {
        error:
          "é longo demais: o endereço (sem https://) mais /checkout/recurrences/rec_… deve caber nos 77 caracteres do campo 80 do BR Code de uma recorrência",
      })
      .optional(),
    inProduction: (url) =>
      url?.startsWith("https://") ? undefined : "PUBLIC_BASE_URL deve ser um endereço https:// com NODE_ENV=production",
    readme: {
      default: "`http://localhost:$PORT`",
      meaning: "where payment-link checkout URLs point; must be `https` in production",
    },
  }),
  DATABASE_URL: variable({
    key: "databaseUrl",
    readBy: ["server", "worker"],
    parse: z
      .string()
      .regex(/^postgres(ql)?:\/\//, { error: "deve começar com postgres:// ou postgresql://" })
      .optional(),
    readme: {
      default: "unset (memory)",
      meaning: "PostgreSQL; migrations run at start (`npm run migrate` runs them alone)",
    },
  }),
  ADMIN_TOKEN: variable({
    key: "adminToken",
    readBy: ["server", "cli"],
    secret: true,
    // Unset: the server makes one per run outside production (main.ts).
    parse: z.string().optional(),
    inProduction: (token) =>
      token !== undefined && token.length < 24
        ? "ADMIN_TOKEN deve ter ao menos 24 caracteres com NODE_ENV=production"
        : undefined,
    readme: {
      default: "generated per run (off in production)",
      meaning: "bearer token of the operator API `/admin/v1` (at least 24 characters in production); the CLI sends it",
    },
  }),
  PIX_ADMIN_URL: variable({
    key: "adminUrl",
    readBy: ["cli"],
    parse: httpUrl.default("http://127.0.0.1:3000"),
    readme: {
      default: "`http://127.0.0.1:3000`",
      meaning: "the server the operator CLI talks to (`npm start` prints it beside `ADMIN_TOKEN`)",
    },
  }),
  PIX_API_KEY: variable({
    key: "apiKey",
    readBy: ["cli"],
    secret: true,
    parse: z.string().optional(),
    readme: { default: "unset", meaning: "the API key the CLI's partner commands use (`--api-key` overrides it)" },
  }),
  PIX_MANUAL_CLOCK: variable({
    key: "manualClock",
    readBy: ["server"],
    parse: flag("1", "0").default(false),
    inProduction: (on) => (on ? refusedInProduction("PIX_MANUAL_CLOCK=1") : undefined),
    readme: {
      default: "0",
      meaning: "`1`: a clock that moves only by `POST /admin/v1/clock/advance` (refused in production)",
    },
  }),
  PIX_PASSWORD_HASH_COST: variable({
    key: "passwordHashCost",
    readBy: ["server"],
    parse: z.enum(["owasp", "minimal"], { error: "use owasp ou minimal" }).default("owasp"),
    inProduction: (cost) => (cost !== "owasp" ? refusedInProduction(`PIX_PASSWORD_HASH_COST=${cost}`) : undefined),
    readme: {
      default: "owasp",
      meaning:
        "argon2id parameters of new password hashes: `owasp` (19 MiB, 2 iterations); `minimal` (64 KiB, 1 iteration) makes the tests' sign-ups and log-ins cheap (refused in production)",
    },
  }),
  MASTER_KEYS: variable({
    key: "masterKeys",
    readBy: ["server", "worker"],
    secret: true,
    // Unset: the fixed development key outside production (main.ts says so in the log).
    parse: z
      .string()
      .optional()
      .transform((text, context) => {
        if (text === undefined) return undefined;
        const parsed = parseMasterKeys(text);
        if ("problem" in parsed) {
          context.addIssue({ code: "custom", message: parsed.problem });
          return z.NEVER;
        }
        return new Keyring(parsed.keys);
      }),
    inProduction: (ring) =>
      ring === undefined
        ? "MASTER_KEYS é obrigatória com NODE_ENV=production: sem ela os segredos guardados (TOTP, conexão bancária) não se abrem. Gere uma chave com `openssl rand -base64 32` e defina MASTER_KEYS=<id>:<chave>"
        : ring.usesDevelopmentKey()
          ? "MASTER_KEYS contém a chave de desenvolvimento, pública no código: recusada com NODE_ENV=production"
          : undefined,
    readme: {
      default: "a fixed development key (refused in production)",
      meaning:
        "keyring of the secrets at rest (TOTP secrets, webhook signing secrets, the bank connection; the server and `npm run worker`): `id:base64key` of 32 bytes, comma-separated, oldest first; the last one seals, every one opens (rotation: add one, restart, `npm run admin -- secrets rotate`)",
    },
  }),
  PIX_ALLOW_LOCAL_WEBHOOKS: variable({
    key: "allowLocalWebhooks",
    readBy: ["server", "worker"],
    // Unset: on outside production, off in production, filled in by loadConfig and loadWorkerConfig.
    parse: flag("1", "0").optional(),
    inProduction: (on) => (on ? refusedInProduction("PIX_ALLOW_LOCAL_WEBHOOKS=1") : undefined),
    readme: {
      default: "`1`, `0` in production",
      meaning:
        "`1`: test-mode webhook endpoints may be on loopback (`http://127.0.0.1:…`), so a receiver on this machine works; `0`: public addresses only (`1` is refused in production)",
    },
  }),
  PIX_WEBHOOK_WORKER: variable({
    key: "webhookWorker",
    readBy: ["server"],
    parse: flag("on", "off").default(true),
    readme: { default: "on", meaning: "`off`: do not deliver webhooks in this process (run `npm run worker`)" },
  }),
  PIX_REQUEST_LOGS: variable({
    key: "requestLogs",
    readBy: ["server"],
    parse: flag("on", "off").default(true),
    readme: {
      default: "on",
      meaning:
        "`off`: this process keeps no request logs (Desenvolvedores → Registros; [record 0058](decisions/0058-request-logs.md))",
    },
  }),
  PIX_WEBHOOK_CLAIM_SECONDS: variable({
    key: "webhookClaimSeconds",
    readBy: ["server", "worker"],
    // Unset: the worker's own default.
    parse: integer(1, 86_400).optional(),
    readme: {
      default: "60",
      meaning: "how long a worker's claim on a delivery lasts before another worker may take it over",
    },
  }),
  PIX_BANK_WAIT_MS: variable({
    key: "bankWaitMs",
    readBy: ["server"],
    parse: integer(100, 30_000).default(2_000),
    readme: {
      default: "2000",
      meaning:
        "how long a production charge's create (and a refund) waits for the bank before answering it `PENDING` and finishing it in the background",
    },
  }),
  PIX_BANK_RECONCILE_SECONDS: variable({
    key: "bankReconcileSeconds",
    readBy: ["server"],
    parse: integer(2, 86_400).default(300),
    readme: {
      default: "300",
      meaning: "how often the reconciler reads the Pix the bank received and keeps what callbacks missed",
    },
  }),
  PIX_BANK_RETRY_SECONDS: variable({
    key: "bankRetrySeconds",
    readBy: ["server"],
    parse: integer(1, 60).default(5),
    readme: {
      default: "5",
      meaning:
        "the first pause after the bank did not answer: work owed to it (a registration, a removal, a refund, a recurrence) is tried again after it, doubling to 10 minutes, a webhook registration it refused and a callback listener whose port was taken, doubling to 5 minutes; the circuit breaker stays open this long; and the server looks for that work, and reads withdrawals' transfers back, this often",
    },
  }),
  PIX_BANK_PAYOUT_CLAIM_SECONDS: variable({
    key: "bankPayoutClaimSeconds",
    readBy: ["server"],
    parse: integer(3, 3_600).default(60),
    readme: {
      default: "60",
      meaning:
        "how long one pass alone may send a withdrawal's transfers to the bank (the create's, from its commit; another's once it claims them): a process killed before sending leaves them to the payout job after this",
    },
  }),
  PIX_BANK_RECONCILE_WINDOW_SECONDS: variable({
    key: "bankReconcileWindowSeconds",
    readBy: ["server"],
    parse: integer(60, 604_800).default(3_600),
    readme: {
      default: "3600",
      meaning:
        "how far back each reconciliation reads (several intervals, so runs overlap: a failed run or a Pix listed late is covered by the next)",
    },
  }),
  PIX_BANK_TIMEOUT_MS: variable({
    key: "bankTimeoutMs",
    readBy: ["server"],
    parse: integer(100, 60_000).default(5_000),
    readme: {
      default: "5000",
      meaning:
        "the bounded wait of one call to the bank, token included: no answer by then (or a 5xx, a refused connection) leaves the outcome unknown, to be read back later",
    },
  }),
  PIX_BANK_WEBHOOK_PORT: variable({
    key: "bankWebhookPort",
    readBy: ["server"],
    // Unset: this process runs no listener (another one does, or no bank is connected).
    parse: integer(0, 65535).optional(),
    readme: {
      default: "none (no listener)",
      meaning:
        "port of the listener for the bank's callbacks (HTTPS with mutual TLS: only the bank's client certificate, from the connection's CA, is accepted), on `HOST`",
    },
  }),
  PIX_BANK_WEBHOOK_CERT_FILE: variable({
    key: "bankWebhookCertFile",
    readBy: ["server"],
    parse: z.string().optional(),
    readme: {
      default: "none",
      meaning: "PEM file of the bank listener's own server certificate (for the host of the connection's webhook URL)",
    },
  }),
  PIX_BANK_WEBHOOK_KEY_FILE: variable({
    key: "bankWebhookKeyFile",
    readBy: ["server"],
    parse: z.string().optional(),
    readme: { default: "none", meaning: "PEM file of that certificate's private key" },
  }),
  PIX_BANK_ACCOUNT: variable({
    key: "bankAccount",
    readBy: ["server"],
    // Unset: Pix Automático stays off the bank (a cycle charge at the bank names the account it credits).
    parse: z
      .string()
      .regex(/^\d{0,4}\/\d{1,20}\/(CORRENTE|POUPANCA|PAGAMENTO)$/, {
        error: "use <agência>/<conta>/<CORRENTE|POUPANCA|PAGAMENTO>, por exemplo 0001/1234567/CORRENTE",
      })
      .optional(),
    readme: {
      default: "none (recurrences stay off the bank)",
      meaning:
        "the platform's account at the bank as `<branch>/<number>/<kind>` (kind `CORRENTE`, `POUPANCA` or `PAGAMENTO`; e.g. `0001/1234567/CORRENTE`): with a connection, production recurrences (Pix Automático) are registered at the bank and their cycle charges credit this account",
    },
  }),
  SMTP_URL: variable({
    key: "smtpUrl",
    readBy: ["server"],
    parse: z.url({ protocol: /^smtps?$/, error: "deve ser um endereço smtp:// ou smtps://" }).optional(),
    readme: {
      default: "unset (log mailer)",
      meaning:
        "SMTP server of the e-mails (confirmation, password reset, withdrawal notice, the members' notices and the payer's receipt of [record 0057](decisions/0057-e-mail-notices.md)): `smtp://user:password@host:587`, `smtps://…:465`, `?from=` the sender; unset, e-mails are written to the log (their link tokens left out in production)",
    },
  }),
  PIX_CHECKOUT_SECRET: variable({
    key: "checkoutSecret",
    readBy: ["server"],
    secret: true,
    parse: z.string().min(16, { error: "mínimo 16 caracteres" }).optional(),
    readme: {
      default: "random per process",
      meaning: "CSRF secret of the hosted checkout (at least 16 characters); set it when running several machines",
    },
  }),
  TRUST_PROXY: variable({
    key: "trustProxy",
    readBy: ["server"],
    parse: z.string().optional().transform(parseTrustProxy),
    readme: {
      default: "off",
      meaning: "hop count or comma-separated subnets; decides the client IP for allow-lists and rate limits",
    },
  }),
  RATE_LIMITS: variable({
    key: "rateLimits",
    readBy: ["server"],
    parse: flag("on", "off")
      .default(true)
      .transform((on): RateLimits | "off" => (on ? defaultRateLimits : "off")),
    inProduction: (limits) =>
      limits === "off" ? "RATE_LIMITS=off é só para testes locais: recusado com NODE_ENV=production" : undefined,
    readme: { default: "on", meaning: "`off`: local test runs only; refused in production" },
  }),
  WEB_CONCURRENCY: variable({
    key: "webConcurrency",
    readBy: ["server"],
    parse: integer(1, 64).default(1),
    readme: {
      default: "1",
      meaning: "server processes on this machine (`node:cluster`); more than 1 needs `DATABASE_URL`",
    },
  }),
  PIX_CLUSTER_WORKER: variable({
    key: "clusterWorker",
    readBy: ["server"],
    parse: z.literal("1", { error: "deve ser 1 (o servidor a define nos processos que cria)" }).optional(),
    readme: {
      default: "unset",
      meaning: "set to `1` by the server itself on the processes it forks for `WEB_CONCURRENCY`; not set by hand",
    },
  }),
  SHUTDOWN_TIMEOUT_MS: variable({
    key: "shutdownTimeoutMs",
    readBy: ["server", "worker"],
    parse: integer(0, 600_000).default(10_000),
    readme: {
      default: "10000",
      meaning: "on SIGTERM/SIGINT, how long in-flight requests and webhook attempts may take before exit",
    },
  }),
  LOG_LEVEL: variable({
    key: "logLevel",
    readBy: ["server", "worker"],
    parse: z.enum(logLevels, { error: `use ${logLevels.slice(0, -1).join(", ")} ou silent` }).default("info"),
    readme: { default: "info", meaning: "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`" },
  }),
  LOG_FORMAT: variable({
    key: "logFormat",
    readBy: ["server", "worker"],
    // Unset: pretty on a terminal outside production, else json (logger.ts).
    parse: z.enum(["json", "pretty"], { error: "use json ou pretty" }).optional(),
    inProduction: (format) => (format === "pretty" ? refusedInProduction("LOG_FORMAT=pretty") : undefined),
    readme: {
      default: "`pretty` on a terminal, else `json`",
      meaning: "`json` (one object a line) or `pretty` (readable; never in production)",
    },
  }),
  NODE_ENV: variable({
    key: "production",
    readBy: ["server", "worker"],
    parse: z
      .string()
      .optional()
      .transform((value) => value === "production"),
    readme: {
      default: "development",
      meaning: "`production`: turns off the operator token default, applies the guards above",
    },
  }),
};

type Variables = typeof variables;
type Name = keyof Variables;
/** The names `reader` reads. */
type ReadBy<P extends Reader> = { [N in Name]: P extends Variables[N]["readBy"][number] ? N : never }[Name];
/** What `reader` gets: one property per variable it reads, typed by that variable's parser. */
type Settings<P extends Reader> = {
  [N in ReadBy<P> as Variables[N]["key"]]: z.output<Variables[N]["parse"]>;
};

const declarations = Object.entries(variables) as [Name, Variables[Name]][];

/** The README's environment table (header included), one row per declaration. */
export function environmentTable(): string {
  const rows = declarations.map(([name, v]) => `| \`${name}\` | ${v.readme.default} | ${v.readme.meaning} |`);
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

/** A configuration refused: one line per problem, in Portuguese, naming the variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuração inválida:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * A refused value as the start-up message shows it: a secret's never (a wrong separator in
 * MASTER_KEYS printed every master key), and any address's credentials (`DATABASE_URL`,
 * `SMTP_URL`: `postgres://***@db:5432/pix`) masked; the rest as typed, quoted.
 */
function shownValue(declaration: { secret?: true }, text: string | undefined): string {
  if (text === undefined) return "(vazio)";
  if (declaration.secret) return "(valor omitido: é um segredo)";
  return JSON.stringify(text.replace(/(:\/\/)[^/?#\s]*@/g, "$1***@"));
}

/**
 * The variables `reader` reads, parsed (empty values count as unset; the others are not read, so
 * each process validates only its own), then what production refuses of them when it reads
 * NODE_ENV, then `rules` across variables. Every problem is reported at once.
 */
function read<P extends Reader>(
  env: NodeJS.ProcessEnv,
  reader: P,
  rules: (settings: Settings<P>) => string[] = () => [],
): Settings<P> {
  const settings: Record<string, unknown> = {};
  const problems: string[] = [];
  const parsed: [Variables[Name], unknown][] = [];
  for (const [name, declaration] of declarations) {
    if (!(declaration.readBy as readonly Reader[]).includes(reader)) continue;
    const text = env[name] === "" ? undefined : env[name];
    const result = declaration.parse.safeParse(text);
    if (result.success) {
      settings[declaration.key] = result.data;
      parsed.push([declaration, result.data]);
    } else {
      problems.push(
        `${name}=${shownValue(declaration, text)}: ${result.error.issues.map((i) => i.message).join("; ")}`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (settings.production === true) {
    for (const [declaration, value] of parsed) {
      const refusal = (declaration.inProduction as ((value: unknown) => string | undefined) | undefined)?.(value);
      if (refusal) problems.push(refusal);
    }
  }
  problems.push(...rules(settings as Settings<P>));
  if (problems.length > 0) throw new ConfigError(problems);
  return settings as Settings<P>;
}

export type ServerConfig = Omit<Settings<"server">, "publicBaseUrl" | "allowLocalWebhooks"> & {
  /** PUBLIC_BASE_URL, or `http://localhost:$PORT`. */
  publicBaseUrl: string;
  /** Whether test-mode webhook endpoints may be on loopback (default: outside production). */
  allowLocalWebhooks: boolean;
};

/** The server's configuration; refuses (ConfigError) invalid values and what production forbids. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const settings = read(
    env,
    "server",
    ({ webConcurrency, databaseUrl, bankWebhookPort, bankWebhookCertFile, bankWebhookKeyFile }) => [
      ...(webConcurrency > 1 && !databaseUrl
        ? [
            `WEB_CONCURRENCY=${webConcurrency} precisa de DATABASE_URL: cada processo teria seu próprio armazenamento em memória`,
          ]
        : []),
      ...(bankWebhookPort !== undefined && (!bankWebhookCertFile || !bankWebhookKeyFile)
        ? [
            "PIX_BANK_WEBHOOK_PORT precisa de PIX_BANK_WEBHOOK_CERT_FILE e PIX_BANK_WEBHOOK_KEY_FILE: o certificado do servidor que recebe as notificações do banco",
          ]
        : []),
    ],
  );
  return {
    ...settings,
    publicBaseUrl: settings.publicBaseUrl ?? `http://localhost:${settings.port}`,
    allowLocalWebhooks: settings.allowLocalWebhooks ?? !settings.production,
  };
}

export type WorkerConfig = Omit<Settings<"worker">, "allowLocalWebhooks"> & {
  /** Whether test-mode webhook endpoints may be on loopback (default: outside production). */
  allowLocalWebhooks: boolean;
};

/** `npm run worker`: only what the delivery worker reads. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const settings = read(env, "worker");
  return { ...settings, allowLocalWebhooks: settings.allowLocalWebhooks ?? !settings.production };
}

/** The CLI: the server it talks to, the operator token and the partner API key (flags override them). */
export function loadCliConfig(env: NodeJS.ProcessEnv = process.env): Settings<"cli"> {
  return read(env, "cli");
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
