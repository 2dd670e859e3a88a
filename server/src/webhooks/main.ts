/** `npm run worker`: the webhook delivery worker alone, on the store `DATABASE_URL` names. */
import { configOrExit, loadWorkerConfig } from "../config.js";
import { developmentKeyring } from "../domain/core/secrets.js";
import { systemClock } from "../domain/ports/clock.js";
import { createLogger } from "../logger.js";
import { onShutdownSignals } from "../shutdown.js";
import { openStore } from "../store/open.js";
import { DeliveryWorker } from "./worker.js";

const config = configOrExit(() => loadWorkerConfig());
const logger = await createLogger({ level: config.logLevel, format: config.logFormat, production: config.production });
if (!config.databaseUrl) {
  logger.warn("DATABASE_URL is not set: a worker alone on the memory store has nothing to deliver");
}
const opened = await openStore(config.databaseUrl, logger);
// The endpoints' signing secrets are sealed (MASTER_KEYS, the server's keyring; config.ts refuses
// its absence in production): outside production the fixed development key, said so in the log.
if (!config.masterKeys)
  logger.warn(
    "MASTER_KEYS ausente: segredos de webhook abertos com a chave fixa de desenvolvimento (recusada em produção)",
  );
const worker = new DeliveryWorker({
  store: opened.store,
  clock: systemClock,
  logger,
  secrets: config.masterKeys ?? developmentKeyring(),
  allowLoopbackForTest: config.allowLocalWebhooks,
  // How long a claim lasts before another worker may take the delivery over (default 60 s).
  ...(config.webhookClaimSeconds ? { claimSeconds: config.webhookClaimSeconds } : {}),
});
worker.start();
logger.info({ store: opened.kind }, "webhook worker started");
// In-flight attempts finish (and are recorded) before the pool closes.
onShutdownSignals({
  logger,
  timeoutMs: config.shutdownTimeoutMs,
  stop: async () => {
    await worker.stop();
    await opened.store.close();
  },
});
