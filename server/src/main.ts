/**
 * `npm start`: the reference server. With `WEB_CONCURRENCY=N` (N > 1, PostgreSQL only) this
 * process becomes a `node:cluster` primary that forks N server processes sharing the port.
 */
import type { Server } from "node:http";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { bankWiring } from "./bank/wiring.js";
import { configOrExit, loadConfig, type ServerConfig } from "./config.js";
import { allPermissions, createAccount, createApiKey } from "./domain/accounts/index.js";
import { type Clock, ManualClock, systemClock } from "./domain/ports/clock.js";
import type { Store } from "./domain/ports/store.js";
import { randomBase62 } from "./domain/core/ids.js";
import { defaultDomainConfig } from "./domain/deps.js";
import { createDomain } from "./domain/service.js";
import { developmentKeyring } from "./domain/core/secrets.js";
import { loadBankCredentials, recordBankHealth } from "./domain/bank/index.js";
import { createApp } from "./http/app.js";
import { appServer } from "./http/kit/app-server.js";
import { sharedRateLimitStore } from "./http/kit/rate-limit-store.js";
import { startIdempotencyPurge, startPeriodicPurge } from "./jobs/idempotency-purge.js";
import { startRecurrenceDuties } from "./jobs/recurrence-duties.js";
import { startBankWork } from "./jobs/bank-work.js";
import { startBankReconcile } from "./jobs/bank-reconcile.js";
import { startWithdrawalPayouts } from "./jobs/withdrawal-payouts.js";
import { startNotices } from "./jobs/notices.js";
import { startRequestLogs } from "./jobs/request-logs.js";
import { createLogger } from "./logger.js";
import { logMailer, smtpMailer } from "./mail.js";
import { onShutdownSignals, signalCounter } from "./shutdown.js";
import { openStore } from "./store/open.js";
import { registrationGuard } from "./webhooks/guard.js";
import { DeliveryWorker } from "./webhooks/worker.js";

const config = configOrExit(() => loadConfig());

/**
 * Whether this process is one the primary forked (`PIX_CLUSTER_WORKER`, set in the environment it
 * gives `cluster.fork`). The primary alone loads `node:cluster` (with `child_process`, about 20 ms
 * of a start's CPU that a single process never needs); Node itself joins a forked process to its
 * primary.
 */
const isClusterWorker = config.clusterWorker === "1" && process.send !== undefined;

/** What a started server process tells the one that prints the banner. */
interface Started {
  /** The port bound (PORT=0 lets the system pick one). */
  port: number;
  storeKind: string;
  devKey: string | null;
  accountId: string | null;
}

/** Sent by a cluster worker to the primary. */
type WorkerMessage = { type: "started"; started: Started } | { type: "failed"; message: string };

/** The development account; its CNPJ (a test number) shows on the checkout as a real merchant's would. */
const DEV_ACCOUNT = { name: "Loja de Desenvolvimento", ownerEmail: "dev@example.com", document: "11222333000181" };

/**
 * Outside production, on an empty store: a verified development account and a test key with every
 * permission. Production seeds nothing: its accounts are sign-ups the operator verifies, and no key
 * is ever written to its log.
 * docs/decisions/0043-production-needs-a-verified-account-and-keys-carry-their-makers-money-powers.md.
 */
async function bootstrap(
  store: Store,
  clock: Clock,
  production: boolean,
): Promise<{ accountId: string | null; devKey: string | null }> {
  if (production) return { accountId: null, devKey: null };
  if ((await store.read.accounts.count()) > 0) return { accountId: await findDevAccount(store), devKey: null };
  return store.transaction(async (tx) => {
    // Several processes starting on one empty database: one creates the account, the others see it.
    await tx.lockScope({ accountId: "bootstrap", livemode: false });
    if ((await tx.accounts.count()) > 0) return { accountId: null, devKey: null };
    const now = clock.now().toISOString();
    const account = await createAccount(tx, { ...DEV_ACCOUNT, verified: true }, now);
    const { secret } = await createApiKey(
      tx,
      account,
      { name: "development", livemode: false, permissions: [...allPermissions] },
      now,
    );
    return { accountId: account.id, devKey: secret };
  });
}

/** The development account made by an earlier start, among the first accounts of the store. */
async function findDevAccount(store: Store): Promise<string | null> {
  const page = await store.read.accounts.list({ limit: 100, startingAfter: undefined });
  const found = page.items.find((a) => a.name === DEV_ACCOUNT.name && a.ownerEmail === DEV_ACCOUNT.ownerEmail);
  return found?.id ?? null;
}

/** Binds `server`; resolves once listening, rejects with the bind error (a busy port among them). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function bindFailure(error: NodeJS.ErrnoException, cfg: ServerConfig): string {
  if (error.code === "EADDRINUSE")
    return `porta em uso: ${cfg.port} (HOST ${cfg.host}). Encerre o outro processo ou escolha outra com PORT=…`;
  if (error.code === "EACCES") return `sem permissão para usar a porta ${cfg.port} (HOST ${cfg.host}).`;
  if (error.code === "EADDRNOTAVAIL") return `endereço indisponível nesta máquina: HOST ${cfg.host}.`;
  return `não foi possível escutar em ${cfg.host}:${cfg.port}: ${error.message}`;
}

/** The bank listener's port, address and server certificate, when PIX_BANK_WEBHOOK_PORT is set. */
function bankListenerOf(cfg: ServerConfig) {
  if (cfg.bankWebhookPort === undefined || !cfg.bankWebhookCertFile || !cfg.bankWebhookKeyFile) return undefined;
  return {
    port: cfg.bankWebhookPort,
    host: cfg.host,
    certificate: {
      cert: readFileSync(cfg.bankWebhookCertFile, "utf8"),
      key: readFileSync(cfg.bankWebhookKeyFile, "utf8"),
    },
  };
}

/** One server process: store, app, bind, bootstrap, webhook worker, graceful shutdown. */
async function runServer(cfg: ServerConfig, logger: Logger): Promise<Started> {
  const manualClock = cfg.manualClock ? new ManualClock(new Date()) : null;
  const clock: Clock = manualClock ?? systemClock;
  const opened = await openStore(cfg.databaseUrl, logger);
  const store = opened.store;
  // MASTER_KEYS, or outside production (config.ts refuses its absence there) the fixed development
  // key, said so in the log. Only key ids are ever logged.
  const secrets = cfg.masterKeys ?? developmentKeyring();
  if (!cfg.masterKeys)
    logger.warn(
      "MASTER_KEYS ausente: segredos guardados selados com a chave fixa de desenvolvimento (pública no código; recusada em produção)",
    );
  // The platform's bank (issue 35; server/src/bank/): the access the domain calls, rebuilt when the
  // operator changes the connection, the listener for the bank's callbacks and the webhook's
  // registration at the bank, made at start-up and on every change of the connection.
  const bank = bankWiring({
    load: () => loadBankCredentials({ store, secrets }),
    recordHealth: (patch) => recordBankHealth({ store }, patch),
    onReceived: (endToEndIds) => domain.bankReceipts.confirmReceived(endToEndIds),
    onRecurrences: (recIds) => domain.bankRecurrences.confirmRecurrences(recIds),
    onCycleCharges: (txids) => domain.bankRecurrences.confirmCycleCharges(txids),
    onPayoutsSettled: (transferIds) => domain.withdrawalPayouts.confirmSettled(transferIds),
    account: cfg.bankAccount,
    logger,
    listener: bankListenerOf(cfg),
    timeoutMs: cfg.bankTimeoutMs,
    waitMs: cfg.bankWaitMs,
    registerRetryMs: cfg.bankRetrySeconds * 1000,
    breaker: { openMs: cfg.bankRetrySeconds * 1000 },
  });
  const domain = createDomain(
    {
      store,
      clock,
      bank: bank.access,
      config: {
        ...defaultDomainConfig,
        publicBaseUrl: cfg.publicBaseUrl,
        passwordHashCost: cfg.passwordHashCost,
        bankReconcileWindowSeconds: cfg.bankReconcileWindowSeconds,
        bankReconcileSeconds: cfg.bankReconcileSeconds,
        bankPayoutClaimSeconds: cfg.bankPayoutClaimSeconds,
        bankRetrySeconds: cfg.bankRetrySeconds,
      },
      mailer: cfg.smtpUrl ? smtpMailer(cfg.smtpUrl) : logMailer(logger, { hideLinks: cfg.production }),
      logger,
      secrets,
    },
    { webhookUrlGuard: registrationGuard(cfg.allowLocalWebhooks) },
  );
  const app = createApp({
    domain,
    logger,
    publicBaseUrl: cfg.publicBaseUrl,
    rateLimits: cfg.rateLimits,
    ...(opened.rateLimitCounters ? { rateLimitStore: sharedRateLimitStore(opened.rateLimitCounters) } : {}),
    trustProxy: cfg.trustProxy,
    requestLogs: cfg.requestLogs,
    admin: { token: cfg.adminToken, manualClock },
    // Several processes behind one load balancer must share the checkout's CSRF secret.
    ...(cfg.checkoutSecret ? { checkout: { csrfSecret: cfg.checkoutSecret } } : {}),
  });
  // Before serving: a keyring that cannot open the stored secrets refuses to start (naming the key
  // missing), and TOTP and webhook secrets still in clear are sealed (docs/decisions/0050-secrets-at-rest-and-the-bank-connection.md).
  try {
    const { sealed } = await domain.sealedSecrets.prepare();
    if (sealed > 0) logger.info({ sealed, keyId: secrets.newest.id }, "segredos em claro selados (TOTP, webhooks)");
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  const server = appServer(app);
  try {
    await listen(server, cfg.port, cfg.host);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new BindError(bindFailure(error as NodeJS.ErrnoException, cfg));
  }

  /** Webhook delivery runs inside the server unless PIX_WEBHOOK_WORKER=off (then run `npm run worker`). */
  const worker = cfg.webhookWorker
    ? new DeliveryWorker({
        store,
        clock,
        logger,
        secrets,
        allowLoopbackForTest: cfg.allowLocalWebhooks,
        ...(cfg.webhookClaimSeconds ? { claimSeconds: cfg.webhookClaimSeconds } : {}),
      })
    : null;
  /** Idempotency records past the 24 h window are forgotten in the background (docs/decisions/0005-idempotency.md). */
  const idempotencyPurge = startIdempotencyPurge({ purge: domain.idempotency.purgeExpired, logger });
  /** Expired dashboard sessions and e-mail links are deleted in the background (docs/decisions/0041-e-mail-links-ownership-and-identity-housekeeping.md). */
  const identityPurge = startPeriodicPurge({
    purge: domain.users.purgeExpired,
    logger,
    what: "expired dashboard sessions and e-mail links",
  });
  /** Recurrences' expiries and automatic cycle charges (Pix Automático), in the background. */
  const recurrenceDuties = startRecurrenceDuties({ duties: domain.recurrenceDuties, logger });
  // The connection, if any: its webhook registered at the bank and the listener bound (bounded by
  // PIX_BANK_TIMEOUT_MS; a bank that does not answer is logged, and tried again later).
  await bank.start();
  /** The work owed to the bank and the reconciler (issue 35); each does nothing while no bank is connected. */
  const bankWork = startBankWork({ work: domain.bankWork, logger, intervalMs: cfg.bankRetrySeconds * 1000 });
  const bankReconcile = startBankReconcile({
    reconcile: domain.bankReconcile,
    now: () => clock.now(),
    logger,
    schedule: { intervalSeconds: cfg.bankReconcileSeconds, windowSeconds: cfg.bankReconcileWindowSeconds },
  });
  /** Production withdrawals paid out by the bank (issue 36 §1): settled, recovered, sent when the balance allows. */
  const withdrawalPayouts = startWithdrawalPayouts({
    payouts: domain.withdrawalPayouts,
    logger,
    intervalMs: cfg.bankRetrySeconds * 1000,
  });
  /** The e-mail notices (issue 37 §2): sent after the requests that caused them, the daily summaries queued. */
  const notices = startNotices({ notices: domain.notices, logger });
  /** The public API's request logs (issue 37 §2): written in batches each second, old days dropped hourly. */
  const requestLogs = cfg.requestLogs ? startRequestLogs({ requestLogs: domain.requestLogs, logger }) : null;
  // A cluster worker stops on its primary's SIGTERM only: the terminal's Ctrl+C reaches the whole
  // process group, and the primary relays it, which would otherwise count as a second signal.
  if (isClusterWorker) process.on("SIGINT", () => undefined);
  onShutdownSignals({
    logger,
    timeoutMs: cfg.shutdownTimeoutMs,
    signals: isClusterWorker ? ["SIGTERM"] : ["SIGTERM", "SIGINT"],
    // Stop accepting and let in-flight requests finish (idle keep-alive sockets are closed), then
    // let in-flight webhook attempts finish, then close the pool.
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.on("request", (_req, res) => res.setHeader("connection", "close"));
      server.closeIdleConnections();
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      await closed;
      clearInterval(idle);
      await Promise.all([
        worker?.stop(),
        idempotencyPurge.stop(),
        identityPurge.stop(),
        recurrenceDuties.stop(),
        bankWork.stop(),
        bankReconcile.stop(),
        withdrawalPayouts.stop(),
        notices.stop(),
        // After the server stopped answering: its last requests' logs are written before the pool closes.
        requestLogs?.stop(),
      ]);
      await bank.close();
      await store.close();
    },
  });
  const { accountId, devKey } = await bootstrap(store, clock, cfg.production);
  worker?.start();
  return { port: (server.address() as AddressInfo).port, storeKind: opened.kind, devKey, accountId };
}

class BindError extends Error {}

/** Where a client on this machine reaches the server: loopback when it listens on every address. */
function reachableBase(host: string, port: number): string {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

/** `value` as one word of a POSIX shell command line (quoted when it has to be). */
const shellWord = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`);

function printBanner(cfg: ServerConfig, started: Started, adminTokenGenerated: boolean, processes: number): void {
  const base = `http://${cfg.host.includes(":") ? `[${cfg.host}]` : cfg.host}:${started.port}`;
  const where = processes > 1 ? `, ${processes} processos` : "";
  console.log(`Pix Charging Service ouvindo em ${base} (armazenamento: ${started.storeKind}${where})`);
  console.log(`Referência da API: ${base}/docs   Saúde: ${base}/health   Prontidão: ${base}/ready`);
  // The dashboard's API accepts changes only from PUBLIC_BASE_URL's origin: open the app there.
  console.log(`Painel do lojista (cadastre-se e entre): ${cfg.publicBaseUrl.replace(/\/$/, "")}/painel`);
  if (started.storeKind === "memory")
    console.log(
      "Dados só na memória: ao reiniciar, contas, chaves e cobranças somem. Para mantê-los: npm run start:pg",
    );
  // The operator CLI's server and token as one line to paste: a token alone once sent the CLI to
  // the default port while this server listened on another.
  const adminUrl = `PIX_ADMIN_URL=${shellWord(reachableBase(cfg.host, started.port))}`;
  if (adminTokenGenerated) {
    console.log("Operador desta execução (ADMIN_TOKEN gerado); para `npm run admin`, cole no terminal:");
    console.log(`export ${adminUrl} ADMIN_TOKEN=${shellWord(cfg.adminToken ?? "")}`);
  } else if (cfg.adminToken) {
    console.log("Operador (ADMIN_TOKEN configurado); para `npm run admin`, cole no terminal também:");
    console.log(`export ${adminUrl}`);
  } else console.log("API de operador desligada (sem ADMIN_TOKEN).");
  // Where webhooks may go: a receiver on this machine works out of the box outside production.
  if (cfg.allowLocalWebhooks)
    console.log(
      "Webhooks de teste podem ir para esta máquina (http://127.0.0.1:…, localhost); PIX_ALLOW_LOCAL_WEBHOOKS=0 os limita a endereços públicos.",
    );
  else if (cfg.production)
    console.log("Webhooks só para endereços públicos: endereços locais (loopback) recusados em produção.");
  else
    console.log(
      "Webhooks só para endereços públicos (PIX_ALLOW_LOCAL_WEBHOOKS=0); sem essa variável, os de teste podem ir para esta máquina.",
    );
  if (cfg.manualClock) console.log("Relógio manual (PIX_MANUAL_CLOCK=1): avance com POST /admin/v1/clock/advance");
  if (started.accountId) console.log(`Conta de desenvolvimento (para os comandos de operador): ${started.accountId}`);
  if (started.devKey) {
    console.log(`Chave de teste de desenvolvimento (todas as permissões): ${started.devKey}`);
    console.log(`Experimente: curl -H 'x-api-key: ${started.devKey}' ${base}/api/v1/balance`);
  }
}

/**
 * Without ADMIN_TOKEN, npm start makes one for this run (and prints it); in production the
 * operator API stays off. Cluster workers get the primary's token and checkout secret, so every
 * process accepts the same token and every checkout form posts to any process.
 */
const adminTokenGenerated = !config.adminToken && !config.production && !isClusterWorker;
const effective: ServerConfig = adminTokenGenerated ? { ...config, adminToken: `adm_${randomBase62(32)}` } : config;

if (config.webConcurrency > 1 && !isClusterWorker) {
  const { default: cluster } = await import("node:cluster");
  const processes = config.webConcurrency;
  const env = {
    PIX_CLUSTER_WORKER: "1",
    ...(effective.adminToken ? { ADMIN_TOKEN: effective.adminToken } : {}),
    PIX_CHECKOUT_SECRET: config.checkoutSecret ?? randomBytes(32).toString("base64url"),
  };
  const started: Started[] = [];
  let stopping = false;
  let failed = false;
  cluster.on("message", (_worker, message: WorkerMessage) => {
    if (message.type === "failed" && !failed) {
      failed = true;
      console.error(message.message);
      for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGTERM");
      process.exitCode = 1;
    } else if (message.type === "started") {
      started.push(message.started);
      if (started.length === processes) {
        const devKey = started.find((s) => s.devKey)?.devKey ?? null;
        const accountId = started.find((s) => s.accountId)?.accountId ?? null;
        printBanner(
          effective,
          { port: message.started.port, storeKind: message.started.storeKind, devKey, accountId },
          adminTokenGenerated,
          processes,
        );
      }
    }
  });
  cluster.on("exit", (_worker, code, signal) => {
    if (!stopping && !failed && started.length < processes) {
      // A process that cannot start (database unreachable, migrations failing) would fail again:
      // stop the others and exit 1 rather than fork in a loop.
      failed = true;
      console.error(`um processo do servidor não iniciou (código ${code ?? signal}): encerrando`);
      for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGTERM");
      process.exitCode = 1;
    } else if (stopping && code !== 0) {
      process.exitCode = 1; // this process outlasted SHUTDOWN_TIMEOUT_MS or failed to stop
    } else if (!stopping && !failed && (code !== 0 || signal)) {
      // A server process died on its own: the others keep serving; say so and replace it.
      console.error(`processo do servidor terminou (código ${code ?? signal}); iniciando outro`);
      cluster.fork(env);
    }
    if (Object.keys(cluster.workers ?? {}).length === 0 && (stopping || failed)) process.exit(process.exitCode ?? 0);
  });
  const count = signalCounter();
  const killAll = () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
    process.exit(1);
  };
  const relay = (signal: NodeJS.Signals) => {
    const which = count(signal);
    if (which === "echo") return;
    if (which === "second") killAll();
    stopping = true;
    // Each server process keeps its own deadline; this one covers a process that does not exit.
    setTimeout(killAll, config.shutdownTimeoutMs + 2_000);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
  };
  process.on("SIGTERM", relay);
  process.on("SIGINT", relay);
  for (let i = 0; i < processes; i++) cluster.fork(env);
} else {
  const logger = await createLogger({
    level: config.logLevel,
    format: config.logFormat,
    production: config.production,
  });
  try {
    const started = await runServer(effective, logger);
    if (isClusterWorker) process.send?.({ type: "started", started } satisfies WorkerMessage);
    else printBanner(effective, started, adminTokenGenerated, 1);
  } catch (error) {
    const message =
      error instanceof BindError ? error.message : `falha ao iniciar: ${(error as Error).message ?? String(error)}`;
    if (!(error instanceof BindError)) logger.fatal({ err: error }, "falha ao iniciar");
    if (isClusterWorker && process.send) {
      process.send({ type: "failed", message } satisfies WorkerMessage, () => process.exit(1));
    } else {
      console.error(message);
      process.exit(1);
    }
  }
}
