import { maskPixKey } from "../../pix/documents.js";
import type { Schemas, WithdrawalRecord } from "../core/model.js";

export function presentWithdrawal(w: WithdrawalRecord): Schemas["Withdrawal"] {
  return {
    id: w.id,
    status: w.status,
    amountCents: w.amountCents,
    feeCents: w.feeCents,
    netAmountCents: w.amountCents - w.feeCents,
    paidAmountCents: w.paidAmountCents,
    returnedAmountCents: w.returnedAmountCents,
    pixKey: maskPixKey(w.pixKey, w.pixKeyType),
    pixKeyType: w.pixKeyType,
    // Field by field: a transfer through the bank keeps what the service knows of it there, never shown.
    transfers: w.transfers.map((t) => ({
      id: t.id,
      amountCents: t.amountCents,
      status: t.status,
      endToEndId: t.endToEndId,
      completedAt: t.completedAt,
      ...(t.failureReason ? { failureReason: t.failureReason } : {}),
    })),
    failureReason: w.failureReason,
    livemode: w.livemode,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}
