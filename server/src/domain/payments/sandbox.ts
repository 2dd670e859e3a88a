import type { StoreTx } from "../ports/store.js";
import { isPending } from "../balance/index.js";
import { balanceOf } from "../balance/index.js";
import type { Caller, DomainDeps, ScopedCaller } from "../deps.js";
import { DomainError, notFound } from "../core/errors.js";
import { closeDisputeOf, openDisputeOn } from "./disputes.js";
import { once } from "../core/idempotency.js";
import { newId } from "../core/ids.js";
import type { Scope, TransactionRecord } from "../core/model.js";
import { effectiveStatus, presentTransaction } from "./presenters.js";

// The sandbox plays, with test keys only, what the payer, the bank and time do in production:
// expiry, disputes (MED) and the end of the release period. Payments are simulated by
// `charges.simulatePayment`; withdrawal and refund outcomes by the sandbox acquirer's magic values.

function requireTestMode(actor: ScopedCaller): void {
  if (actor.scope.livemode) throw new DomainError("TEST_MODE_ONLY");
}

/**
 * Makes every pending credit of the scope available now. The ledger is append-only, so each
 * release instant still ahead gets a pair of entries: the pending sum credited as available now,
 * and the same sum debited at its old release instant (which cancels it there).
 */
async function releasePending(tx: StoreTx, scope: Scope, at: string): Promise<number> {
  const pendingByRelease = new Map<string, number>();
  for (const e of await tx.ledger.list(scope)) {
    if (isPending(e, at) && e.releaseAt !== null) {
      pendingByRelease.set(e.releaseAt, (pendingByRelease.get(e.releaseAt) ?? 0) + e.amountCents);
    }
  }
  let released = 0;
  for (const [releaseAt, cents] of [...pendingByRelease].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (cents === 0) continue;
    const refId = newId("led");
    for (const entry of [
      { amountCents: cents, releaseAt: null },
      { amountCents: -cents, releaseAt },
    ]) {
      await tx.ledger.append({
        id: newId("led"),
        ...scope,
        bucket: "available",
        ...entry,
        kind: "pending_released",
        refId,
        createdAt: at,
      });
    }
    released += cents;
  }
  return released;
}

export function sandboxUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();

  /** Runs `work` on a test charge of the actor's scope, under the scope lock, at most once per key. */
  const onTestCharge = <T>(
    actor: ScopedCaller,
    operation: string,
    id: string,
    body: unknown,
    idempotencyKey: string | undefined,
    status: number,
    work: (tx: StoreTx, charge: TransactionRecord, at: string) => Promise<T>,
  ) => {
    requireTestMode(actor);
    const at = now();
    return deps.store.transaction(async (tx) => {
      await tx.lockScope(actor.scope);
      return once(tx, actor.scope, operation, idempotencyKey, { id, body }, at, async () => {
        const charge = await tx.transactions.get(actor.scope, id);
        if (!charge) throw notFound();
        return { status, body: await work(tx, charge, at) };
      });
    });
  };

  return {
    /** A WAITING_PAYMENT test charge expires now. */
    expire: (actor: ScopedCaller, id: string, idempotencyKey?: string) =>
      onTestCharge(actor, "simulateExpiry", id, null, idempotencyKey, 200, async (tx, charge, at) => {
        const status = effectiveStatus(charge, at);
        if (status !== "WAITING_PAYMENT") {
          throw new DomainError("REQUEST_ERROR", `A cobrança não está aguardando pagamento: status atual ${status}.`);
        }
        const expired: TransactionRecord = { ...charge, status: "EXPIRED", expiresAt: at, updatedAt: at };
        await tx.transactions.update(expired);
        return presentTransaction(expired, at);
      }),

    /** The payer contests a paid test charge (MED). */
    openDispute: (actor: ScopedCaller, id: string, body: { amountCents?: number }, idempotencyKey?: string) =>
      onTestCharge(actor, "simulateDispute", id, body, idempotencyKey, 201, async (tx, charge, at) =>
        presentTransaction(await openDisputeOn(tx, charge, body.amountCents, at), at),
      ),

    /** Closes an open test dispute, WON or LOST. */
    async resolveDispute(actor: ScopedCaller, disputeId: string, outcome: "WON" | "LOST", idempotencyKey?: string) {
      requireTestMode(actor);
      const at = now();
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(
          tx,
          actor.scope,
          "simulateDisputeResolution",
          idempotencyKey,
          { disputeId, outcome },
          at,
          async () => {
            const charge = await tx.transactions.getByDisputeId(disputeId);
            if (!charge || charge.accountId !== actor.scope.accountId || charge.livemode !== actor.scope.livemode) {
              throw notFound();
            }
            return { status: 200, body: presentTransaction(await closeDisputeOf(tx, charge, outcome, at), at) };
          },
        );
      });
    },

    /** The whole pending test balance becomes available now; answers the balance after it. */
    async releaseBalance(actor: Caller, idempotencyKey?: string) {
      requireTestMode(actor);
      const at = now();
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "simulateBalanceRelease", idempotencyKey, null, at, async () => {
          await releasePending(tx, actor.scope, at);
          return { status: 200, body: await balanceOf(tx, actor, new Date(at)) };
        });
      });
    },
  };
}
