import { checkAmountCents } from "../core/amounts.js";
import type { ScopedCaller, DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { fieldError, notFound } from "../core/errors.js";
import { auditChange, requireActiveForProduction } from "../identity/index.js";
import { once } from "../core/idempotency.js";
import { newId } from "../core/ids.js";
import { checkMetadata } from "../core/metadata.js";
import type { PageRequest, PaymentLinkRecord, Schemas } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { amountLimits } from "../core/policy.js";
import { presentPaymentLink } from "./presenters.js";

export function paymentLinkUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  return {
    /** A new link; in production only for a verified account (`403 ACCOUNT_NOT_ACTIVE`): its checkout takes real money. */
    async create(actor: ScopedCaller, body: Schemas["CreatePaymentLinkRequest"], idempotencyKey?: string) {
      requireActiveForProduction(actor);
      checkAmountCents(body.amountCents, amountLimits.minChargeCents);
      checkMetadata(body.metadata);
      const at = now();
      let expiresAt = addSeconds(at, deps.config.paymentLinkExpirySeconds);
      if (body.expiresAt !== undefined) {
        expiresAt = new Date(body.expiresAt).toISOString();
        if (expiresAt <= at) throw fieldError("expiresAt", "deve ser um instante no futuro");
      }
      const link: PaymentLinkRecord = {
        id: newId("plk"),
        ...actor.scope,
        amountCents: body.amountCents,
        description: body.description,
        active: true,
        maxPayments: body.maxPayments ?? null,
        paymentsCount: 0,
        askAddress: body.askAddress ?? false,
        returnUrl: body.returnUrl ?? null,
        metadata: body.metadata ?? null,
        expiresAt,
        createdAt: at,
        updatedAt: at,
      };
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createPaymentLink", idempotencyKey, body, at, async () => {
          await tx.paymentLinks.insert(link);
          await auditChange(tx, actor, {
            action: "payment_link.created",
            target: { type: "payment_link", id: link.id },
            changes: {
              amountCents: { from: null, to: link.amountCents },
              description: { from: null, to: link.description },
            },
            at,
          });
          return { status: 201, body: presentPaymentLink(link, deps.config) };
        });
      });
    },

    async get(actor: ScopedCaller, id: string) {
      const link = await deps.store.read.paymentLinks.get(actor.scope, id);
      if (!link) throw notFound();
      return presentPaymentLink(link, deps.config);
    },

    async list(actor: ScopedCaller, filter: { active?: "true" | "false" | undefined }, page: PageRequest) {
      const active = filter.active === undefined ? undefined : filter.active === "true";
      const result = await pageOrInvalidCursor(() => deps.store.read.paymentLinks.list(actor.scope, { active }, page));
      return { data: result.items.map((l) => presentPaymentLink(l, deps.config)), hasMore: result.hasMore };
    },

    async deactivate(actor: ScopedCaller, id: string, idempotencyKey?: string) {
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        const at = now();
        return once(tx, actor.scope, "deactivatePaymentLink", idempotencyKey, { id }, at, async () => {
          const link = await tx.paymentLinks.get(actor.scope, id);
          if (!link) throw notFound();
          if (!link.active) return { status: 200, body: presentPaymentLink(link, deps.config) };
          const updated = { ...link, active: false, updatedAt: at };
          await tx.paymentLinks.update(updated);
          await auditChange(tx, actor, {
            action: "payment_link.deactivated",
            target: { type: "payment_link", id: link.id },
            changes: { active: { from: true, to: false } },
            at,
          });
          return { status: 200, body: presentPaymentLink(updated, deps.config) };
        });
      });
    },
  };
}
