import type { components } from "../../../../generated/dashboard-api.js";
import { recordAudit } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import { type DashboardMode, inMode, type ModeCaller, requireActiveForProduction } from "../identity/index.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, notFound } from "../core/errors.js";
import { eventApiVersion } from "./events.js";
import { newId } from "../core/ids.js";
import type { PageRequest, WebhookEndpointRecord } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import type { StoreReads } from "../ports/store.js";
import { requireStepUp } from "../identity/index.js";
import { type DashboardActor } from "../identity/model.js";
import {
  httpsForProduction,
  lockEndpoint,
  newEndpoint,
  openWebhookSecret,
  pendingDelivery,
  type UrlGuard,
} from "./endpoints.js";
import {
  deleteEndpointAudited,
  insertEndpointAudited,
  rotateEndpointSecretAudited,
  updateEndpointAudited,
} from "./audited.js";
import { presentDashboardDelivery, presentDashboardEndpoint } from "./present.js";

// The account's webhook endpoints in the dashboard (issue 25 §2), per mode: the same records, and
// the same changes (`webhook-endpoints.ts`), as the operator API's. Production endpoints need a
// verified account to be created or changed, and a step-up to reveal or rotate their secret. Every
// change, a reveal and a test sent included, is in the account's audit log, as the operator API
// writes it (never the secret). docs/decisions/0032-webhook-endpoints-in-the-dashboard.md.

type Schemas = components["schemas"];

/** The kind of the test event the dashboard sends (spec/webhook-test-event.tsp `WebhookTestEvent`). */
const testEventType = "webhook.test";

/** A test event to `endpoint`: its id, and its envelope (the shape of every event, a `webhook.test` object). */
function testEvent(endpoint: WebhookEndpointRecord, at: string): { id: string; envelope: Record<string, unknown> } {
  const id = newId("evt");
  const envelope = {
    id,
    type: testEventType,
    createdAt: at,
    livemode: endpoint.livemode,
    apiVersion: eventApiVersion,
    data: {
      object: {
        endpointId: endpoint.id,
        message: "Evento de teste enviado pelo painel: nada aconteceu na conta.",
      },
    },
  };
  return { id, envelope };
}

export function dashboardWebhookUseCases(deps: DomainDeps, guardUrl: UrlGuard = httpsForProduction) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** The endpoint `id` of the caller's account and mode; another account's or mode's is not found. */
  async function endpointInScope(
    reads: Pick<StoreReads, "webhookEndpoints">,
    caller: ModeCaller,
    id: string,
  ): Promise<WebhookEndpointRecord> {
    const endpoint = await reads.webhookEndpoints.get(id);
    if (!endpoint || endpoint.accountId !== caller.scope.accountId || endpoint.livemode !== caller.scope.livemode) {
      throw notFound();
    }
    return endpoint;
  }

  /** Refuses to send to a disabled endpoint (`400 REQUEST_ERROR`): nothing would be delivered. */
  function requireEnabled(endpoint: WebhookEndpointRecord) {
    if (endpoint.disabledAt !== null) {
      throw new DomainError("REQUEST_ERROR", "O endpoint está desativado: ative-o (enabled: true) antes de enviar.");
    }
  }

  /**
   * What hands a production endpoint's secret or events to someone (create, which answers the
   * secret; a new URL; reveal; rotate), or silences its events (delete), needs a step-up in the
   * last 10 minutes (issue 33, finding 9).
   */
  function guardSecret(actor: DashboardActor, caller: ModeCaller) {
    if (caller.scope.livemode) requireStepUp(actor, now());
  }

  return {
    async list(actor: DashboardActor, mode: DashboardMode, page: PageRequest): Promise<Schemas["WebhookEndpointPage"]> {
      const caller = inMode(actor, mode);
      const result = await pageOrInvalidCursor(() => store.read.webhookEndpoints.list(caller.scope, page));
      return { data: result.items.map(presentDashboardEndpoint), hasMore: result.hasMore };
    },

    /** A new endpoint of the mode with its `whsec_` secret; production needs a verified account, then a step-up. */
    async create(
      actor: DashboardActor,
      mode: DashboardMode,
      body: Schemas["CreateDashboardWebhookEndpointRequest"],
    ): Promise<Schemas["WebhookEndpointWithSecret"]> {
      const caller = inMode(actor, mode);
      requireActiveForProduction(caller);
      await guardUrl(body.url, caller.scope.livemode);
      guardSecret(actor, caller);
      const at = now();
      const endpoint = newEndpoint({ ...caller.scope, url: body.url, events: body.events }, at, deps.secrets);
      await store.transaction(async (tx) => {
        await insertEndpointAudited(tx, endpoint, byUser(actor), at);
      });
      return { ...presentDashboardEndpoint(endpoint), secret: openWebhookSecret(deps.secrets, endpoint.secret) };
    },

    /**
     * Changes the address or kinds, disables or enables; in production anything but disabling
     * needs a verified account, and a new address a step-up.
     */
    async update(
      actor: DashboardActor,
      mode: DashboardMode,
      id: string,
      body: Schemas["UpdateDashboardWebhookEndpointRequest"],
    ): Promise<Schemas["WebhookEndpoint"]> {
      const caller = inMode(actor, mode);
      const onlyDisables = body.url === undefined && body.events === undefined && body.enabled !== true;
      if (!onlyDisables) requireActiveForProduction(caller);
      await endpointInScope(store.read, caller, id);
      if (body.url !== undefined) {
        await guardUrl(body.url, caller.scope.livemode);
        guardSecret(actor, caller);
      }
      const updated = await store.transaction(async (tx) => {
        await lockEndpoint(tx, id);
        const endpoint = await endpointInScope(tx, caller, id);
        return updateEndpointAudited(tx, endpoint, body, byUser(actor), now());
      });
      return presentDashboardEndpoint(updated);
    },

    /** Deletes the endpoint (nothing more is sent to it); a production one's after a step-up. */
    async remove(actor: DashboardActor, mode: DashboardMode, id: string): Promise<void> {
      const caller = inMode(actor, mode);
      guardSecret(actor, caller);
      await store.transaction(async (tx) => {
        await deleteEndpointAudited(tx, await endpointInScope(tx, caller, id), byUser(actor), now());
      });
    },

    /** The endpoint's signing secret; a production one's after a step-up. */
    async revealSecret(actor: DashboardActor, mode: DashboardMode, id: string): Promise<Schemas["WebhookSecret"]> {
      const caller = inMode(actor, mode);
      guardSecret(actor, caller);
      const endpoint = await store.transaction(async (tx) => {
        const found = await endpointInScope(tx, caller, id);
        await recordAudit(tx, {
          accountId: found.accountId,
          by: byUser(actor),
          action: "webhook_endpoint.secret_revealed",
          target: { type: "webhook_endpoint", id },
          livemode: found.livemode,
          at: now(),
        });
        return found;
      });
      return { secret: openWebhookSecret(deps.secrets, endpoint.secret) };
    },

    /** A new secret; the old one signs beside it for 24 hours. A production one's after a step-up. */
    async rotateSecret(
      actor: DashboardActor,
      mode: DashboardMode,
      id: string,
    ): Promise<Schemas["WebhookEndpointWithSecret"]> {
      const caller = inMode(actor, mode);
      guardSecret(actor, caller);
      const rotated = await store.transaction(async (tx) => {
        await lockEndpoint(tx, id);
        return rotateEndpointSecretAudited(
          tx,
          await endpointInScope(tx, caller, id),
          byUser(actor),
          now(),
          deps.secrets,
        );
      });
      return { ...presentDashboardEndpoint(rotated), secret: openWebhookSecret(deps.secrets, rotated.secret) };
    },

    /** The endpoint's deliveries, newest first, each with every attempt. */
    async listDeliveries(
      actor: DashboardActor,
      mode: DashboardMode,
      id: string,
      page: PageRequest,
    ): Promise<Schemas["WebhookDeliveryPage"]> {
      const caller = inMode(actor, mode);
      const endpoint = await endpointInScope(store.read, caller, id);
      const result = await pageOrInvalidCursor(() => store.read.deliveries.listByEndpoint(endpoint.id, page));
      return { data: result.items.map(presentDashboardDelivery), hasMore: result.hasMore };
    },

    /** A delivery's event again, to the same endpoint: a new delivery, due at once. */
    async resend(
      actor: DashboardActor,
      mode: DashboardMode,
      id: string,
      deliveryId: string,
    ): Promise<Schemas["WebhookDelivery"]> {
      const caller = inMode(actor, mode);
      const queued = await store.transaction(async (tx) => {
        const endpoint = await endpointInScope(tx, caller, id);
        const delivery = await tx.deliveries.get(deliveryId);
        if (!delivery || delivery.endpointId !== endpoint.id) throw notFound();
        requireEnabled(endpoint);
        const at = now();
        const again = pendingDelivery(
          endpoint,
          { id: delivery.eventId, type: delivery.eventType },
          at,
          delivery.testEvent,
        );
        await tx.deliveries.insert(again);
        await recordAudit(tx, {
          accountId: endpoint.accountId,
          by: byUser(actor),
          action: "event.resent",
          target: { type: "event", id: delivery.eventId },
          livemode: endpoint.livemode,
          changes: { deliveries: { from: null, to: [again.id] }, endpointId: { from: null, to: endpoint.id } },
          at,
        });
        return again;
      });
      return presentDashboardDelivery(queued);
    },

    /**
     * A test event (`webhook.test`) to the endpoint alone, whatever kinds it selected: a delivery
     * that carries its envelope, sent by the worker like any other, once.
     */
    async sendTestEvent(actor: DashboardActor, mode: DashboardMode, id: string): Promise<Schemas["WebhookDelivery"]> {
      const caller = inMode(actor, mode);
      const queued = await store.transaction(async (tx) => {
        const endpoint = await endpointInScope(tx, caller, id);
        requireEnabled(endpoint);
        const at = now();
        const test = testEvent(endpoint, at);
        const delivery = pendingDelivery(endpoint, { id: test.id, type: testEventType }, at, test.envelope);
        await tx.deliveries.insert(delivery);
        await recordAudit(tx, {
          accountId: endpoint.accountId,
          by: byUser(actor),
          action: "webhook_endpoint.test_sent",
          target: { type: "webhook_endpoint", id: endpoint.id },
          livemode: endpoint.livemode,
          changes: { deliveries: { from: null, to: [delivery.id] } },
          at,
        });
        return delivery;
      });
      return presentDashboardDelivery(queued);
    },
  };
}
