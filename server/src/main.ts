import { pino } from "pino";
import { loadConfig } from "./config.js";
import { allPermissions, createAccount, createApiKey } from "./domain/accounts.js";
import { type Clock, ManualClock, systemClock } from "./domain/ports/clock.js";
import { randomBase62 } from "./domain/ids.js";
import { defaultDomainConfig } from "./domain/deps.js";
import { createDomain } from "./domain/service.js";
import { createApp } from "./http/app.js";
import { sharedRateLimitStore } from "./http/rate-limit-store.js";
import { startIdempotencyPurge } from "./idempotency-purge.js";
import { logMailer } from "./mail.js";
import { openStore } from "./store/open.js";
import { registrationGuard } from "./webhooks/guard.js";
import { DeliveryWorker } from "./webhooks/worker.js";

const config = loadConfig();
const logger = pino({ level: config.logLevel });

const manualClock = process.env.PIX_MANUAL_CLOCK === "1" ? new ManualClock(new Date()) : null;
if (manualClock && config.production) {
  throw new Error("PIX_MANUAL_CLOCK=1 is refused with NODE_ENV=production");
}
const clock: Clock = manualClock ?? systemClock;
/** Without ADMIN_TOKEN, npm start makes one for this run (and prints it); in production the operator API stays off. */
const adminToken = process.env.ADMIN_TOKEN || (config.production ? undefined : `adm_${randomBase62(32)}`);
const adminTokenGenerated = !process.env.ADMIN_TOKEN && adminToken !== undefined;

const opened = await openStore(config.databaseUrl, logger);
const store = opened.store;
const allowLocalWebhooks = process.env.PIX_ALLOW_LOCAL_WEBHOOKS === "1";
if (allowLocalWebhooks && config.production)
  throw new Error("PIX_ALLOW_LOCAL_WEBHOOKS=1 is refused with NODE_ENV=production");
const domain = createDomain(
  {
    store,
    clock,
    config: { ...defaultDomainConfig, publicBaseUrl: config.publicBaseUrl },
    mailer: logMailer(logger),
    logger,
  },
  { webhookUrlGuard: registrationGuard(allowLocalWebhooks) },
);
/** Webhook delivery runs inside the server unless PIX_WEBHOOK_WORKER=off (then run `npm run worker`). */
const worker =
  process.env.PIX_WEBHOOK_WORKER === "off"
    ? null
    : new DeliveryWorker({ store, clock, logger, allowLoopbackForTest: allowLocalWebhooks });
worker?.start();
/** Idempotency records past the 24 h window are forgotten in the background (docs/decisions.md). */
const idempotencyPurge = startIdempotencyPurge({ purge: domain.idempotency.purgeExpired, logger });

/** On an empty store: a verified development account and a test key with every permission. */
async function bootstrap(): Promise<string | null> {
  if ((await store.read.accounts.count()) > 0) return null;
  return store.transaction(async (tx) => {
    // Several processes starting on one empty database: one creates the account, the others see it.
    await tx.lockScope({ accountId: "bootstrap", livemode: false });
    if ((await tx.accounts.count()) > 0) return null;
    const now = clock.now().toISOString();
    const account = await createAccount(
      tx,
      { name: "Loja de Desenvolvimento", ownerEmail: "dev@example.com", verified: true },
      now,
    );
    const { secret } = await createApiKey(
      tx,
      account,
      { name: "development", livemode: false, permissions: [...allPermissions] },
      now,
    );
    return secret;
  });
}

const devKey = await bootstrap();
const app = createApp({
  domain,
  rateLimits: config.rateLimits,
  ...(opened.rateLimitCounters ? { rateLimitStore: sharedRateLimitStore(opened.rateLimitCounters) } : {}),
  trustProxy: config.trustProxy,
  validateResponses: !config.production,
  admin: { token: adminToken, manualClock },
  // Several processes behind one load balancer must share the checkout's CSRF secret.
  ...(process.env.PIX_CHECKOUT_SECRET ? { checkout: { csrfSecret: process.env.PIX_CHECKOUT_SECRET } } : {}),
});
const server = app.listen(config.port, config.host, () => {
  const base = `http://${config.host}:${config.port}`;
  console.log(`Pix Charging Service listening on ${base} (store: ${opened.kind})`);
  console.log(`API reference: ${base}/docs`);
  if (adminTokenGenerated) console.log(`Operator API token for this run (ADMIN_TOKEN): ${adminToken}`);
  else if (!adminToken) console.log("Operator API off (no ADMIN_TOKEN).");
  if (manualClock) console.log("Manual clock (PIX_MANUAL_CLOCK=1): advance it with POST /admin/v1/clock/advance");
  if (devKey) {
    console.log(`Development test key (every permission): ${devKey}`);
    console.log(`Try: curl -H 'x-api-key: ${devKey}' ${base}/api/v1/balance`);
  }
});

const shutdown = () => {
  server.close(() => {
    Promise.all([worker?.stop(), idempotencyPurge.stop()])
      .then(() => store.close())
      .finally(() => process.exit(0));
  });
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
