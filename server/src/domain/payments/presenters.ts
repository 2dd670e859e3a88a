import type { DomainConfig } from "../deps.js";
import { deepFreeze } from "../core/values.js";
import { dueDateView } from "./due-date/present.js";
import type {
  CustomerRecord,
  PaymentLinkRecord,
  RefundRecord,
  Schemas,
  TransactionRecord,
  TransactionStatus,
} from "../core/model.js";

/** The status a client sees: an unpaid Pix past `expiresAt` is `EXPIRED`, with no sweep needed. */
export function effectiveStatus(t: Pick<TransactionRecord, "status" | "expiresAt">, now: string): TransactionStatus {
  return t.status === "WAITING_PAYMENT" && t.expiresAt <= now ? "EXPIRED" : t.status;
}

/**
 * Views that never change: deep-frozen, and handed out to every read of the same row. The HTTP
 * layer keeps the JSON of each one (`http/json.ts`), so a row read again is not serialised again.
 */
export const sharedViews = new WeakSet<object>();
/**
 * How many charges keep a shared view at most: past it the memo starts afresh and a view is built
 * again at its charge's next read. A view and its JSON take about twice the row's own heap, so
 * this bounds what reading costs in memory (a few tens of MB), whatever is read.
 */
export const maxSharedTransactionViews = 10_000;
let transactionViews = new WeakMap<TransactionRecord, Schemas["Transaction"]>();
let sharedTransactionViews = 0;

/**
 * A charge as the API shows it. A frozen row is a value that cannot change (the memory store
 * freezes the rows it keeps and replaces them on every change), so its view is built once per
 * effective status and shared; any other row (PostgreSQL's, fresh from each query) gets its own.
 */
export function presentTransaction(t: TransactionRecord, now: string): Schemas["Transaction"] {
  const status = effectiveStatus(t, now);
  // A charge with a due date waiting for payment owes a different amount each day: not shared.
  if (!Object.isFrozen(t) || (t.dueDateCharge && status === "WAITING_PAYMENT")) return transactionView(t, status, now);
  const known = transactionViews.get(t);
  if (known?.status === status) return known;
  const view = deepFreeze(transactionView(t, status, now));
  if (!known && ++sharedTransactionViews > maxSharedTransactionViews) {
    transactionViews = new WeakMap();
    sharedTransactionViews = 1;
  }
  transactionViews.set(t, view);
  sharedViews.add(view);
  return view;
}

function transactionView(t: TransactionRecord, status: TransactionStatus, now: string): Schemas["Transaction"] {
  const dueDate = t.dueDateCharge ? dueDateView({ ...t, dueDateCharge: t.dueDateCharge }, status, now) : null;
  const { amountCents, feeCents, brCode } = dueDate ?? t;
  return {
    id: t.id,
    status,
    amountCents,
    feeCents,
    netAmountCents: amountCents - feeCents,
    description: t.description,
    pix: { copyPaste: brCode, qrCode: brCode },
    customer: { ...t.customer },
    ...(t.paymentLinkId ? { paymentLinkId: t.paymentLinkId } : {}),
    ...(t.dispute ? { dispute: { ...t.dispute } } : {}),
    ...(t.recurrenceId ? { recurrenceId: t.recurrenceId } : {}),
    ...(t.cycle ? { dueDate: t.cycle.dueDate, attempts: t.cycle.attempts.map((a) => ({ ...a })) } : {}),
    ...(dueDate ? { dueDateCharge: dueDate.dueDateCharge } : {}),
    ...(t.failureReason ? { failureReason: t.failureReason } : {}),
    refundedAmountCents: t.refundedAmountCents,
    metadata: t.metadata,
    livemode: t.livemode,
    expiresAt: t.expiresAt,
    paidAt: t.paidAt,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export function presentCustomer(c: CustomerRecord): Schemas["Customer"] {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    phone: c.phone,
    documentType: c.documentType,
    document: c.document,
    address: c.address ? { ...c.address } : null,
    livemode: c.livemode,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

function checkoutUrl(config: DomainConfig, linkId: string): string {
  return `${config.publicBaseUrl.replace(/\/+$/, "")}/checkout/${linkId}`;
}

export function presentPaymentLink(l: PaymentLinkRecord, config: DomainConfig): Schemas["PaymentLink"] {
  return {
    id: l.id,
    url: checkoutUrl(config, l.id),
    amountCents: l.amountCents,
    description: l.description,
    active: l.active,
    exhausted: l.maxPayments !== null && l.paymentsCount >= l.maxPayments,
    maxPayments: l.maxPayments,
    askAddress: l.askAddress,
    returnUrl: l.returnUrl,
    metadata: l.metadata,
    livemode: l.livemode,
    expiresAt: l.expiresAt,
    createdAt: l.createdAt,
  };
}

export function presentRefund(r: RefundRecord): Schemas["Refund"] {
  return {
    id: r.id,
    transactionId: r.transactionId,
    amountCents: r.amountCents,
    status: r.status,
    reason: r.reason,
    endToEndId: r.endToEndId,
    failureReason: r.failureReason,
    livemode: r.livemode,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
