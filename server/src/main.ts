import { pino } from "pino";
import { loadConfig } from "./config.js";
import { allPermissions, createAccount, createApiKey } from "./domain/accounts.js";
import { systemClock } from "./domain/clock.js";
import { defaultDomainConfig } from "./domain/deps.js";
import { createDomain } from "./domain/service.js";
import { createApp } from "./http/app.js";
import { logMailer } from "./mail.js";
import { openStore } from "./store/open.js";

const config = loadConfig();
const logger = pino({ level: config.logLevel });

const opened = await openStore(config.databaseUrl, logger);
const store = opened.store;
const domain = createDomain({
  store,
  clock: systemClock,
  config: { ...defaultDomainConfig, publicBaseUrl: config.publicBaseUrl },
  mailer: logMailer(logger),
  logger,
});

/** On an empty store: a verified development account and a test key with every permission. */
async function bootstrap(): Promise<string | null> {
  if ((await store.read.accounts.count()) > 0) return null;
  return store.transaction(async (tx) => {
    const now = systemClock.now().toISOString();
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
  ...(opened.rateLimitStore ? { rateLimitStore: opened.rateLimitStore } : {}),
  trustProxy: config.trustProxy,
  validateResponses: !config.production,
});
const server = app.listen(config.port, config.host, () => {
  const base = `http://${config.host}:${config.port}`;
  console.log(`Pix Charging Service listening on ${base} (store: ${opened.kind})`);
  console.log(`API reference: ${base}/docs`);
  if (devKey) {
    console.log(`Development test key (every permission): ${devKey}`);
    console.log(`Try: curl -H 'x-api-key: ${devKey}' ${base}/api/v1/balance`);
  }
});

const shutdown = () => {
  server.close(() => {
    store.close().finally(() => process.exit(0));
  });
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
