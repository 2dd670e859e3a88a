import type { Logger } from "pino";
import type { Clock } from "../domain/ports/clock.js";
import { addSeconds } from "../domain/core/time.js";
import { webhookDelivery, webhookRetryScheduleSeconds } from "../domain/core/policy.js";
import type { DeliveryRecord, WebhookEndpointRecord } from "../domain/core/model.js";
import type { Store } from "../domain/ports/store.js";
import { developmentKeyring, type Keyring } from "../domain/core/secrets.js";
import { openWebhookSecret } from "../domain/webhooks/index.js";
import { postEvent } from "./deliver.js";
import { signDelivery } from "./signer.js";
import type { GuardPolicy } from "./ssrf.js";

/**
 * Seconds after the first attempt at which each retry is due: the spec's `x-webhook-delivery`
 * (docs/decisions/0006-webhook-events-and-delivery.md, "Delivery").
 */
export const retrySchedule: readonly number[] = webhookRetryScheduleSeconds;

/** The delay before attempt number `attempt` (0-based), ±10% jitter. */
function retryDelaySeconds(attempt: number, random: () => number = Math.random): number | null {
  const at = retrySchedule[attempt];
  const previous = retrySchedule[attempt - 1] ?? 0;
  if (at === undefined) return null;
  const gap = at - previous;
  return Math.max(0, gap + gap * 0.1 * (random() * 2 - 1));
}

export interface WorkerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  allowLoopbackForTest: boolean;
  /** How often to look for due deliveries. */
  pollMs?: number;
  /** How long a claim lasts: a worker that dies mid-delivery loses it after this. */
  claimSeconds?: number;
  /** How long an attempt waits for the answer; default the spec's `x-webhook-delivery` timeout. */
  timeoutMs?: number;
  batch?: number;
  /** Opens the endpoints' sealed signing secrets (MASTER_KEYS); default the development key, as the server's. */
  secrets?: Keyring;
}

/**
 * Delivers the outbox: claims due deliveries (several workers can share one PostgreSQL through
 * `FOR UPDATE SKIP LOCKED`), signs and POSTs each, keeps every attempt, and reschedules per
 * `retrySchedule`. Any 2xx succeeds; `410 Gone` disables the endpoint; `Retry-After` on 429/503
 * is honoured when later than the schedule.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private failing = false;
  /** A wake-up arrived during a pass: the next pass starts at once rather than after `pollMs`. */
  private woken = false;
  private unwatch: (() => void) | null = null;

  constructor(private readonly options: WorkerOptions) {}

  /** `options.secrets`, or the development key: made at the first attempt. */
  private keyring: Keyring | null = null;

  /**
   * The endpoint's signing secrets opened (the store keeps them sealed), for this attempt only. A
   * keyring that cannot open them throws: the pass fails and says so in the log (key ids only), and
   * the delivery is tried again once its claim lapses.
   */
  private signingSecrets(endpoint: WebhookEndpointRecord) {
    const secrets = (this.keyring ??= this.options.secrets ?? developmentKeyring());
    return {
      secret: openWebhookSecret(secrets, endpoint.secret),
      previousSecret: endpoint.previousSecret === null ? null : openWebhookSecret(secrets, endpoint.previousSecret),
      previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
    };
  }

  /**
   * Starts the passes: one at once, then one whenever the store says deliveries were queued
   * (`watchDeliveries`: at the commit in this process, PostgreSQL NOTIFY from the others), and one
   * every `pollMs` regardless, the safety net for a lost notification and for retries coming due.
   */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unwatch = this.options.store.watchDeliveries?.(() => this.wake()) ?? null;
    this.loop();
  }

  /** Runs a pass now, or right after the one under way. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.woken = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.loop();
  }

  private loop(): void {
    if (this.stopped) return;
    this.woken = false;
    this.running = this.runOnce()
      .then(() => {
        if (this.failing) this.options.logger.info("webhook worker passes succeed again");
        this.failing = false;
      })
      .catch((error: unknown) => {
        // Logged once while passes keep failing (a database outage): the loop goes on regardless.
        if (!this.failing) this.options.logger.error({ err: error }, "webhook worker pass failed");
        this.failing = true;
      })
      .finally(() => {
        this.running = null;
        if (this.stopped) return;
        const delay = this.woken && !this.failing ? 0 : (this.options.pollMs ?? 200);
        this.timer = setTimeout(() => this.loop(), delay);
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.unwatch = null;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: claims what is due and attempts each. Returns how many attempts were made. */
  async runOnce(): Promise<number> {
    const { store, clock } = this.options;
    const now = clock.now().toISOString();
    const claimed = await store.transaction((tx) =>
      tx.deliveries.claimDue(now, addSeconds(now, this.options.claimSeconds ?? 60), this.options.batch ?? 10),
    );
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  /** What a delivery sends: a test event's envelope, which it carries, or its recorded event's. */
  private async payloadOf(delivery: DeliveryRecord): Promise<Record<string, unknown> | null> {
    if (delivery.testEvent !== null) return delivery.testEvent;
    return (await this.options.store.read.events.get(delivery.eventId))?.payload ?? null;
  }

  private async attempt(delivery: DeliveryRecord): Promise<void> {
    const { store, clock, logger } = this.options;
    const [payload, endpoint] = await Promise.all([
      this.payloadOf(delivery),
      store.read.webhookEndpoints.get(delivery.endpointId),
    ]);
    const startedAt = clock.now();
    if (!payload || !endpoint || endpoint.disabledAt !== null) {
      await store.transaction((tx) =>
        tx.deliveries.update({
          ...delivery,
          status: "FAILED",
          nextAttemptAt: null,
          lockedUntil: null,
          updatedAt: startedAt.toISOString(),
        }),
      );
      return;
    }
    const policy: GuardPolicy = {
      livemode: endpoint.livemode,
      allowLoopbackForTest: this.options.allowLoopbackForTest,
    };
    const body = JSON.stringify(payload);
    const result = await postEvent(
      endpoint.url,
      body,
      signDelivery(this.signingSecrets(endpoint), delivery.eventId, body, new Date(), startedAt.toISOString()),
      policy,
      this.options.timeoutMs ?? webhookDelivery.timeoutSeconds * 1000,
    );
    const at = startedAt.toISOString();
    const attempts = [
      ...delivery.attempts,
      {
        at,
        status: result.status,
        durationMs: result.durationMs,
        error: result.error,
        responseBody: result.responseBody,
      },
    ];
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    let nextAttemptAt: string | null = null;
    // A test event is tried once: it checks the endpoint now, and the merchant sends another.
    if (!ok && !gone && delivery.testEvent === null) {
      const delay = retryDelaySeconds(attempts.length);
      if (delay !== null) {
        const honoured =
          (result.status === 429 || result.status === 503) && result.retryAfterSeconds !== null
            ? Math.max(delay, result.retryAfterSeconds)
            : delay;
        nextAttemptAt = addSeconds(at, honoured);
      }
    }
    const status = ok ? "SUCCEEDED" : nextAttemptAt === null ? "FAILED" : "PENDING";
    await store.transaction(async (tx) => {
      await tx.deliveries.update({ ...delivery, attempts, status, nextAttemptAt, lockedUntil: null, updatedAt: at });
      if (gone) {
        const current = await tx.webhookEndpoints.get(endpoint.id);
        if (current && current.disabledAt === null) {
          await tx.webhookEndpoints.update({ ...current, disabledAt: at, updatedAt: at });
        }
      }
    });
    logger.info(
      {
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        endpointId: endpoint.id,
        status: result.status,
        outcome: status,
      },
      "webhook attempt",
    );
  }
}
