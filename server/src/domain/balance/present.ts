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
    transfers: w.transfers.map((t) => ({ ...t })),
    failureReason: w.failureReason,
    livemode: w.livemode,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}
