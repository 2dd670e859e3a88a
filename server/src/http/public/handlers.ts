import type { Domain } from "../../domain/service.js";
import type { PublicHandlers } from "./auth.js";
import { storedReply } from "../replay.js";
import { pageFromQuery } from "../router.js";
import { recurrenceHandlers } from "./recurrences.js";
import { sandboxHandlers } from "./sandbox.js";

/**
 * The public API: each generated operation bound to its use case. Every POST (and the PATCH)
 * takes the optional `idempotency-key`; a replay answers the first answer's stored bytes (`storedReply`).
 */
export function publicHandlers(domain: Domain): PublicHandlers {
  return {
    async createPixCharge({ body, headers }, { actor }) {
      const out = await domain.charges.create(actor, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async createDueDateCharge({ body, headers }, { actor }) {
      const out = await domain.dueDateCharges.create(actor, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    // Admitted by its read (`admittedByTheirRead`): a first page's statement confirms the key.
    async listTransactions({ query }, { credentials }) {
      const { status, paymentLinkId, recurrenceId, createdFrom, createdTo } = query;
      const filter = {
        status,
        paymentLinkId,
        recurrenceId,
        ...(createdFrom !== undefined ? { createdFrom } : {}),
        ...(createdTo !== undefined ? { createdTo } : {}),
      };
      return { status: 200, body: await domain.charges.listAsCaller(credentials, filter, pageFromQuery(query)) };
    },
    // Admitted by its read (`admittedByTheirRead`): the charge's statement confirms the key.
    async getTransaction({ params }, { credentials }) {
      return { status: 200, body: await domain.charges.getAsCaller(credentials, params.id) };
    },
    async cancelTransaction({ params, headers }, { actor }) {
      const out = await domain.charges.cancel(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async createPaymentLink({ body, headers }, { actor }) {
      const out = await domain.paymentLinks.create(actor, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async listPaymentLinks({ query }, { actor }) {
      return {
        status: 200,
        body: await domain.paymentLinks.list(actor, { active: query.active }, pageFromQuery(query)),
      };
    },
    async getPaymentLink({ params }, { actor }) {
      return { status: 200, body: await domain.paymentLinks.get(actor, params.id) };
    },
    async deactivatePaymentLink({ params, headers }, { actor }) {
      const out = await domain.paymentLinks.deactivate(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async upsertCustomer({ body, headers }, { actor }) {
      const out = await domain.customers.upsert(actor, body, headers["idempotency-key"]);
      if (out.replayed) return storedReply(out);
      return out.status === 201 ? { status: 201, body: out.body } : { status: 200, body: out.body };
    },
    async listCustomers({ query }, { actor }) {
      return {
        status: 200,
        body: await domain.customers.list(actor, { document: query.document }, pageFromQuery(query)),
      };
    },
    async getCustomer({ params }, { actor }) {
      return { status: 200, body: await domain.customers.get(actor, params.id) };
    },
    async updateCustomer({ params, body, headers }, { actor }) {
      const out = await domain.customers.update(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async getBalance(_request, { actor }) {
      return { status: 200, body: await domain.balance.get(actor) };
    },
    async createWithdrawal({ body, headers }, { actor }) {
      const out = await domain.withdrawals.create(actor, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async listWithdrawals({ query }, { actor }) {
      return { status: 200, body: await domain.withdrawals.list(actor, pageFromQuery(query)) };
    },
    async getWithdrawal({ params }, { actor }) {
      return { status: 200, body: await domain.withdrawals.get(actor, params.id) };
    },
    async createRefund({ params, body, headers }, { actor }) {
      const out = await domain.refunds.create(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async listTransactionRefunds({ params, query }, { actor }) {
      return { status: 200, body: await domain.refunds.listForTransaction(actor, params.id, pageFromQuery(query)) };
    },
    async getRefund({ params }, { actor }) {
      return { status: 200, body: await domain.refunds.get(actor, params.id) };
    },
    ...recurrenceHandlers(domain),
    ...sandboxHandlers(domain),
    async listEvents({ query }, { actor }) {
      const { type, createdFrom, createdTo } = query;
      return {
        status: 200,
        body: await domain.events.list(actor, { type, createdFrom, createdTo }, pageFromQuery(query)),
      };
    },
    async getEvent({ params }, { actor }) {
      return { status: 200, body: await domain.events.get(actor, params.id) };
    },
  };
}
