import type { DomainDeps } from "../deps.js";
import type { PixBank } from "../ports/pix-bank.js";
import type { BankTaskRecord } from "../ports/received-pix-store.js";
import { applyAnswer, bankRefundIdOf, requestRefundAtBank } from "../payments/index.js";

// A production refund through the bank whose outcome is not known yet (the bank did not answer
// within the create's wait, answered `EM_PROCESSAMENTO`, or the process died in between). Its
// task reads the devolução back first (`readRefund`): only a devolução the bank does not know is
// asked for again (`requestRefund`, idempotent on our id anyway).

/** Follows one `refund` task; answers whether it is done (the refund ended, or is gone). */
export async function followRefundTask(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  bank: PixBank,
  task: BankTaskRecord,
): Promise<boolean> {
  const refund = await deps.store.read.refunds.getById(task.subjectId);
  if (!refund || refund.status !== "PENDING") return true;
  const received = await deps.store.read.receivedPix.getCreditedTo(refund.transactionId);
  if (!received) return true;
  const known = await bank.readRefund(received.id, bankRefundIdOf(refund.id));
  const after = known
    ? await applyAnswer(deps, refund, known)
    : await requestRefundAtBank(deps, bank, refund, received.id);
  return after !== null && after.status !== "PENDING";
}
