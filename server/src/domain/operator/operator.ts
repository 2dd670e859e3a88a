import type { components } from "../../../../generated/admin-api.js";
import { changedFields, recordAudit, recordAuditIfChanged, recordChange, writeAudited } from "../audit/index.js";
import { type AuditedBy } from "../audit/model.js";
import { checkAllowedIps } from "../keys/index.js";
import { createKeyAudited, revokeKeyAudited, updateKeyAudited } from "../keys/index.js";
import { httpsForProduction, lockEndpoint, newEndpoint, openWebhookSecret, type UrlGuard } from "../webhooks/index.js";
import { insertEndpointAudited, rotateEndpointSecretAudited, updateEndpointAudited } from "../webhooks/index.js";
import { createAccount, merchantDocument } from "../accounts/index.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, notFound } from "../core/errors.js";
import { queueDeliveries } from "../webhooks/index.js";
import type { Account, ApiKeyRecord, PageRequest } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { checkMerchantIdentity } from "../accounts/index.js";
import { accountFields, presentAccount } from "./presenters.js";
import { endpointFields, presentDelivery, presentEndpoint } from "../webhooks/index.js";
import { presentOperatorKey } from "../keys/index.js";
import { mailVerificationDecision, settleVerificationRequest } from "../accounts/index.js";
import { checkCustomerTags } from "../payments/index.js";

type Admin = components["schemas"];

/**
 * The operator's use cases: the platform's own work on merchants' accounts. Each change is written
 * to the account's audit log with the operator as its actor (`by`), in the change's transaction.
 */
export function operatorUseCases(deps: DomainDeps, guardUrl: UrlGuard = httpsForProduction) {
  const now = () => deps.clock.now().toISOString();
  const account = async (id: string) => {
    const found = await deps.store.read.accounts.get(id);
    if (!found) throw notFound();
    return found;
  };
  /** A key as answered after a change: with when it was last used (read after the change commits). */
  const operatorKey = async (key: ApiKeyRecord) => {
    const uses = await deps.store.read.apiKeys.lastUses([key.id]);
    return presentOperatorKey(key, uses.get(key.id) ?? null, now());
  };
  return {
    async createAccount(body: Admin["CreateAccountRequest"], by: AuditedBy) {
      const created = await deps.store.transaction(async (tx) => {
        const at = now();
        const account = await createAccount(tx, body, at);
        await recordAudit(tx, {
          accountId: account.id,
          by,
          action: "account.created",
          target: { type: "account", id: account.id },
          changes: changedFields(null, presentAccount(account), accountFields),
          at,
        });
        return account;
      });
      return presentAccount(created);
    },
    async listAccounts(page: PageRequest) {
      const result = await pageOrInvalidCursor(() => deps.store.read.accounts.list(page));
      return { data: result.items.map(presentAccount), hasMore: result.hasMore };
    },
    async getAccount(id: string) {
      return presentAccount(await account(id));
    },
    async updateAccount(id: string, body: Admin["UpdateAccountRequest"], by: AuditedBy) {
      checkMerchantIdentity(body);
      if (body.verificationRequestVersion !== undefined && body.verified !== true) {
        throw new DomainError("REQUEST_ERROR", "verificationRequestVersion só acompanha verified: true.");
      }
      const { current, updated } = await deps.store.transaction(async (tx) => {
        const current = await tx.accounts.get(id);
        if (!current) throw notFound();
        const changed: Account = {
          ...current,
          name: body.name ?? current.name,
          ownerEmail: body.ownerEmail ?? current.ownerEmail,
          verified: body.verified ?? current.verified,
          plan: { ...current.plan, ...body.plan },
          releasePeriodDays: body.releasePeriodDays ?? current.releasePeriodDays,
          merchantCity: body.merchantCity ?? current.merchantCity,
          ...(body.document === undefined ? {} : merchantDocument(body.document)),
          updatedAt: now(),
        };
        const updated = await settleVerificationRequest(
          tx,
          current,
          changed,
          { documentSent: body.document !== undefined, reviewedVersion: body.verificationRequestVersion },
          changed.updatedAt,
        );
        await tx.accounts.update(updated);
        await recordAuditIfChanged(tx, {
          accountId: id,
          by,
          action: "account.updated",
          target: { type: "account", id },
          changes: changedFields(presentAccount(current), presentAccount(updated), accountFields),
          at: updated.updatedAt,
        });
        return { current, updated };
      });
      if (!current.verified && updated.verified) {
        const request = await deps.store.read.verificationRequests.get(id);
        mailVerificationDecision(deps, updated, request?.status === "verified" ? request : null, { verified: true });
      }
      return presentAccount(updated);
    },

    async createApiKey(accountId: string, body: Admin["CreateApiKeyRequest"], by: AuditedBy) {
      checkAllowedIps(body.allowedIps);
      return deps.store.transaction(async (tx) => {
        const acc = await tx.accounts.get(accountId);
        if (!acc) throw notFound();
        const { key, secret } = await createKeyAudited(
          tx,
          acc,
          {
            name: body.name,
            livemode: body.mode === "production",
            permissions: body.permissions,
            allowedIps: body.allowedIps,
            dailyWithdrawLimitCents: body.dailyWithdrawLimitCents,
          },
          by,
          now(),
        );
        return { ...presentOperatorKey(key, null, now()), secret };
      });
    },
    async listApiKeys(accountId: string) {
      await account(accountId);
      const keys = await deps.store.read.apiKeys.listByAccount(accountId);
      const uses = await deps.store.read.apiKeys.lastUses(keys.map((k) => k.id));
      const at = now();
      return { data: keys.map((k) => presentOperatorKey(k, uses.get(k.id) ?? null, at)), hasMore: false };
    },
    async updateApiKey(id: string, body: Admin["UpdateApiKeyRequest"], by: AuditedBy) {
      checkAllowedIps(body.allowedIps);
      const changed = await deps.store.transaction(async (tx) => {
        const key = await tx.apiKeys.get(id);
        if (!key) throw notFound();
        return updateKeyAudited(tx, key, body, by, now());
      });
      return operatorKey(changed);
    },
    async revokeApiKey(id: string, by: AuditedBy) {
      const revoked = await deps.store.transaction(async (tx) => {
        const key = await tx.apiKeys.get(id);
        if (!key) throw notFound();
        return revokeKeyAudited(tx, key, by, now());
      });
      return operatorKey(revoked);
    },

    async createWebhookEndpoint(accountId: string, body: Admin["CreateWebhookEndpointRequest"], by: AuditedBy) {
      const livemode = body.mode === "production";
      await guardUrl(body.url, livemode);
      return deps.store.transaction(async (tx) => {
        if (!(await tx.accounts.get(accountId))) throw notFound();
        const at = now();
        const endpoint = newEndpoint({ accountId, livemode, url: body.url, events: body.events }, at, deps.secrets);
        await insertEndpointAudited(tx, endpoint, by, at);
        return { ...presentEndpoint(endpoint), secret: openWebhookSecret(deps.secrets, endpoint.secret) };
      });
    },
    async listWebhookEndpoints(accountId: string) {
      await account(accountId);
      const endpoints = await deps.store.read.webhookEndpoints.listByAccount(accountId);
      return { data: endpoints.map(presentEndpoint), hasMore: false };
    },
    async updateWebhookEndpoint(id: string, body: Admin["UpdateWebhookEndpointRequest"], by: AuditedBy) {
      const current = await deps.store.read.webhookEndpoints.get(id);
      if (!current) throw notFound();
      if (body.url !== undefined) await guardUrl(body.url, current.livemode);
      return deps.store.transaction(async (tx) => {
        await lockEndpoint(tx, id);
        const endpoint = await tx.webhookEndpoints.get(id);
        if (!endpoint) throw notFound();
        const updated = await updateEndpointAudited(tx, endpoint, body, by, now());
        return presentEndpoint(updated);
      });
    },
    async deleteWebhookEndpoint(id: string, by: AuditedBy) {
      await deps.store.transaction(async (tx) => {
        const endpoint = await tx.webhookEndpoints.get(id);
        if (!endpoint) throw notFound();
        await tx.webhookEndpoints.delete(id);
        await recordChange(tx, {
          by,
          action: "webhook_endpoint.deleted",
          target: "webhook_endpoint",
          before: endpoint,
          after: null,
          present: presentEndpoint,
          fields: endpointFields,
          at: now(),
        });
      });
    },
    async rotateWebhookSecret(id: string, by: AuditedBy) {
      return deps.store.transaction(async (tx) => {
        await lockEndpoint(tx, id);
        const endpoint = await tx.webhookEndpoints.get(id);
        if (!endpoint) throw notFound();
        const updated = await rotateEndpointSecretAudited(tx, endpoint, by, now(), deps.secrets);
        return { ...presentEndpoint(updated), secret: openWebhookSecret(deps.secrets, updated.secret) };
      });
    },
    async listDeliveries(endpointId: string, page: PageRequest) {
      if (!(await deps.store.read.webhookEndpoints.get(endpointId))) throw notFound();
      const result = await pageOrInvalidCursor(() => deps.store.read.deliveries.listByEndpoint(endpointId, page));
      return { data: result.items.map(presentDelivery), hasMore: result.hasMore };
    },
    async listEvents(accountId: string, livemode: boolean, page: PageRequest) {
      await account(accountId);
      const result = await pageOrInvalidCursor(() => deps.store.read.events.listPage({ accountId, livemode }, page));
      return {
        data: result.items.map((e) => ({
          id: e.id,
          type: e.type,
          livemode: e.livemode,
          createdAt: e.createdAt,
          payload: e.payload,
        })),
        hasMore: result.hasMore,
      };
    },
    async replayEvent(eventId: string, by: AuditedBy) {
      return deps.store.transaction(async (tx) => {
        const event = await tx.events.get(eventId);
        if (!event) throw notFound();
        const at = now();
        const queued = await queueDeliveries(tx, event, at);
        await recordAudit(tx, {
          accountId: event.accountId,
          by,
          action: "event.resent",
          target: { type: "event", id: eventId },
          livemode: event.livemode,
          changes: { deliveries: { from: null, to: queued.map((d) => d.id) } },
          at,
        });
        return { eventId, deliveries: queued.map(presentDelivery) };
      });
    },

    async getCustomerNotes(customerId: string) {
      const customer = await deps.store.read.customers.getById(customerId);
      if (!customer) throw notFound();
      return { customerId, notes: customer.notes, tags: [...customer.tags] };
    },
    async setCustomerNotes(customerId: string, body: Admin["SetCustomerNotesRequest"], by: AuditedBy) {
      checkCustomerTags(body.tags);
      return deps.store.transaction(async (tx) => {
        const customer = await tx.customers.getById(customerId);
        if (!customer) throw notFound();
        const tags = [...new Set(body.tags)];
        const at = now();
        await writeAudited(tx, tx.customers, {
          by,
          action: "customer.notes_updated",
          target: "customer",
          before: customer,
          after: { ...customer, notes: body.notes, tags, updatedAt: at },
          fields: ["notes", "tags"],
          onlyIfChanged: true,
          at,
        });
        return { customerId, notes: body.notes, tags };
      });
    },
  };
}
