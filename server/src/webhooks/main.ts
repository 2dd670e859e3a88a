/** `npm run worker`: the webhook delivery worker alone, on the store `DATABASE_URL` names. */
import { pino } from "pino";
import { systemClock } from "../domain/ports/clock.js";
import { openStore } from "../store/open.js";
import { DeliveryWorker } from "./worker.js";

const logger = pino({ level: process.env.LOG_LEVEL ?? "info" });
if (!process.env.DATABASE_URL) {
  logger.warn("DATABASE_URL is not set: a worker alone on the memory store has nothing to deliver");
}
const opened = await openStore(process.env.DATABASE_URL, logger);
const worker = new DeliveryWorker({
  store: opened.store,
  clock: systemClock,
  logger,
  allowLoopbackForTest: process.env.PIX_ALLOW_LOCAL_WEBHOOKS === "1",
  // How long a claim lasts before another worker may take the delivery over (default 60 s).
  ...(process.env.PIX_WEBHOOK_CLAIM_SECONDS ? { claimSeconds: Number(process.env.PIX_WEBHOOK_CLAIM_SECONDS) } : {}),
});
worker.start();
logger.info({ store: opened.kind }, "webhook worker started");
const stop = () => {
  worker
    .stop()
    .then(() => opened.store.close())
    .finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
