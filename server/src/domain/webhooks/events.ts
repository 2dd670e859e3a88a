import type { StoreTx } from "../ports/store.js";
import type { ScopedCaller, DomainDeps } from "../deps.js";
import { notFound } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type {
  DeliveryRecord,
  EventRecord,
  PageRequest,
  Schemas,
  Scope,
  WebhookEndpointRecord,
  WebhookEventType,
} from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { pendingDelivery } from "./endpoints.js";

/** The event format version (docs/decisions/0006-webhook-events-and-delivery.md). */
export const eventApiVersion = "1.0.0";

/**
 * Queues one delivery of an event to each enabled endpoint of its scope that selected its kind,
 * due at once. Runs inside the caller's transaction (the outbox).
 */
export async function queueDeliveries(
  tx: StoreTx,
  event: { id: string; type: string; accountId: string; livemode: boolean },
  now: string,
): Promise<DeliveryRecord[]> {
  return queueDeliveriesTo(tx, await tx.webhookEndpoints.listForEvent(event, event.type), event, now);
}

/** Queues one delivery of an event to each of `endpoints` (those `queueDeliveries` reads), due at once. */
async function queueDeliveriesTo(
  tx: StoreTx,
  endpoints: readonly WebhookEndpointRecord[],
  event: { id: string; type: string; accountId: string; livemode: boolean },
  now: string,
): Promise<DeliveryRecord[]> {
  const queued: DeliveryRecord[] = [];
  for (const endpoint of endpoints) {
    const delivery = pendingDelivery(endpoint, event, now);
    await tx.deliveries.insert(delivery);
    queued.push(delivery);
  }
  return queued;
}

/** The event types the account's members may hear of by e-mail (the notices, issue 37 §2). */
export const noticedEventTypes: ReadonlySet<string> = new Set([
  "transaction.paid",
  "withdrawal.paid",
  "withdrawal.partially_paid",
  "withdrawal.failed",
  "dispute.opened",
]);

/**
 * Records an event in the outbox, inside the transaction that caused it; one of the noticed types
 * also queues its e-mail notice (sent by the notices job once this commits).
 */
export async function recordEvent(
  tx: StoreTx,
  scope: Scope,
  type: WebhookEventType,
  object: Record<string, unknown>,
  now: string,
): Promise<string> {
  const id = newId("evt");
  // The event and its scope's endpoints for its type in one step (one statement on PostgreSQL).
  const endpoints = await tx.events.appendListingEndpoints({
    id,
    accountId: scope.accountId,
    livemode: scope.livemode,
    type,
    createdAt: now,
    payload: { id, type, createdAt: now, livemode: scope.livemode, apiVersion: eventApiVersion, data: { object } },
  });
  await queueDeliveriesTo(tx, endpoints, { id, type, accountId: scope.accountId, livemode: scope.livemode }, now);
  if (noticedEventTypes.has(type)) {
    await tx.notices.insertIfAbsent({
      id: `ntc_${id}`,
      kind: "event",
      accountId: scope.accountId,
      subjectId: id,
      detail: {},
      dueAt: now,
      attempts: 0,
      sentAt: null,
      createdAt: now,
    });
  }
  return id;
}

/** The public events API: a key's mode's events, as its webhooks receive them. */
export function eventUseCases(deps: DomainDeps) {
  const present = (e: EventRecord) => e.payload as unknown as Schemas["Event"];
  return {
    async list(
      actor: ScopedCaller,
      filter: { type?: string | undefined; createdFrom?: string | undefined; createdTo?: string | undefined },
      page: PageRequest,
    ) {
      const iso = (v: string | undefined) => (v === undefined ? undefined : new Date(v).toISOString());
      const result = await pageOrInvalidCursor(() =>
        deps.store.read.events.listPage(actor.scope, page, {
          type: filter.type,
          createdFrom: iso(filter.createdFrom),
          createdTo: iso(filter.createdTo),
        }),
      );
      return { data: result.items.map(present), hasMore: result.hasMore };
    },

    async get(actor: ScopedCaller, id: string) {
      const event = await deps.store.read.events.get(id);
      if (!event || event.accountId !== actor.scope.accountId || event.livemode !== actor.scope.livemode) {
        throw notFound();
      }
      return present(event);
    },
  };
}
