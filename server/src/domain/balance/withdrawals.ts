import { normalizePixKey } from "../../pix/documents.js";
import type { StoreReads, StoreTx } from "../ports/store.js";
import { checkAmountCents } from "../core/amounts.js";
import { auditChange, requireActiveForProduction } from "../identity/index.js";
import { remainingOfDailyLimit } from "./rules.js";
import { brasiliaDay } from "../core/time.js";
import { acquirerFor, type Caller, type DomainDeps, type ScopedCaller } from "../deps.js";
import { formatBRL } from "../core/money.js";
import type { WithdrawalDecision } from "../ports/acquirer.js";
import { DomainError, fieldError, notFound } from "../core/errors.js";
import { recordEvent } from "../webhooks/index.js";
import { once } from "../core/idempotency.js";
import { newId, randomBase62 } from "../core/ids.js";
import type { ApiKeyRecord, PageRequest, Schemas, WithdrawalRecord } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { amountLimits } from "../core/policy.js";
import { presentWithdrawal } from "./present.js";
import { bankTransfersOf, sendClaimFrom, sendClaimMsOf, type WithdrawalPayouts } from "./transfers.js";

/** What the key may still withdraw today (Brasília day), or null when it has no daily limit. */
export async function remainingDailyLimit(
  tx: Pick<StoreReads, "withdrawals">,
  key: ApiKeyRecord,
  now: Date,
): Promise<number | null> {
  if (key.dailyWithdrawLimitCents === null) return null;
  const day = brasiliaDay(now);
  const used = await tx.withdrawals.sumForKey(key.id, day.start.toISOString(), day.end.toISOString());
  return remainingOfDailyLimit(key.dailyWithdrawLimitCents, used);
}

/** A Pix end-to-end id shaped like the BCB's: E + ISPB (8) + yyyyMMddHHmm + 11 characters. */
const endToEndId = (at: string) => `E00000000${at.slice(0, 16).replace(/[-T:]/g, "")}${randomBase62(11)}`;

/**
 * Moves the money of a withdrawal out of the balance and records it, under `lockScope`. With
 * `atBank` (production, a bank connection whose dialect sends Pix) its transfers are the bank's
 * (`bankTransfersOf`: split by the connection's per-transfer limit), sent after the commit;
 * otherwise the acquirer decides, in this transaction.
 */
async function reserveWithdrawal(
  deps: DomainDeps,
  tx: StoreTx,
  actor: Caller,
  body: Schemas["CreateWithdrawalRequest"],
  pixKey: string,
  at: string,
  /** Paid out through the bank (null: the acquirer's), split by the connection's per-transfer limit. */
  atBank: { transferLimitCents: number | undefined } | null,
): Promise<WithdrawalRecord> {
  const totals = await tx.ledger.totals(actor.scope, at);
  if (body.amountCents > totals.availableCents) {
    throw new DomainError(
      "INSUFFICIENT_BALANCE",
      `Saldo disponível insuficiente: disponível ${formatBRL(totals.availableCents)}.`,
    );
  }
  // A key's daily limit binds that key; a dashboard user has no key, so no key's limit.
  const remaining = actor.apiKey ? await remainingDailyLimit(tx, actor.apiKey, new Date(at)) : null;
  if (remaining !== null && body.amountCents > remaining) {
    throw new DomainError(
      "WITHDRAW_DAILY_LIMIT",
      `Limite diário de saques excedido. Restam hoje ${formatBRL(remaining)}.`,
    );
  }
  const feeCents = actor.account.plan.withdrawFeeCents;
  const net = body.amountCents - feeCents;
  // Through the bank, the create's pass (after the commit) alone sends them: it holds their claim.
  const claim = atBank ? sendClaimFrom(new Date(at), sendClaimMsOf(deps)) : null;
  const transfers = atBank
    ? bankTransfersOf(
        net,
        feeCents,
        atBank.transferLimitCents ?? (await tx.bankConnection.get())?.payoutLimitCents,
      ).map((t) => ({
        ...t,
        sendClaim: claim,
      }))
    : [{ id: newId("trf"), amountCents: net, status: "PENDING" as const, endToEndId: null, completedAt: null }];
  const withdrawal: WithdrawalRecord = {
    id: newId("wdr"),
    ...actor.scope,
    apiKeyId: actor.apiKey?.id ?? null,
    status: "PENDING",
    amountCents: body.amountCents,
    feeCents,
    paidAmountCents: 0,
    returnedAmountCents: 0,
    pixKey,
    pixKeyType: body.pixKeyType,
    transfers,
    failureReason: null,
    payout: atBank ? { waitingForBalanceSince: null, bankAvailableCents: null } : null,
    createdAt: at,
    updatedAt: at,
  };
  await tx.withdrawals.insert(withdrawal);
  await tx.ledger.append({
    id: newId("led"),
    ...actor.scope,
    bucket: "available",
    amountCents: -body.amountCents,
    releaseAt: null,
    kind: "withdrawal",
    refId: withdrawal.id,
    createdAt: at,
  });
  await recordEvent(tx, actor.scope, "withdrawal.created", presentWithdrawal(withdrawal), at);
  // Paid out through the bank once this transaction commits (WithdrawalPayouts.follow).
  if (atBank) return withdrawal;
  const decision = await acquirerFor(deps, actor.scope.livemode).sendWithdrawal(withdrawal);
  if (decision.outcome === "PENDING") return withdrawal;
  return settleWithdrawalRecord(tx, withdrawal, decision, at);
}

/**
 * Ends a `PENDING` withdrawal with the acquirer's outcome: all paid, part paid (the rest returns
 * to the available balance), or failed (all of it returns); records the matching event. Used at
 * once for test mode (the sandbox acquirer) and later by the settlement simulator.
 */
export async function settleWithdrawalRecord(
  tx: StoreTx,
  w: WithdrawalRecord,
  decision: Exclude<WithdrawalDecision, { outcome: "PENDING" }>,
  at: string,
): Promise<WithdrawalRecord> {
  if (w.status !== "PENDING") {
    throw new DomainError("REQUEST_ERROR", `O saque não está pendente: status atual ${w.status}.`);
  }
  if (w.payout) {
    throw new DomainError(
      "REQUEST_ERROR",
      "Este saque é pago pelo banco da plataforma: termina com as transferências do banco, não pelo simulador.",
    );
  }
  const net = w.amountCents - w.feeCents;
  // The pending transfer keeps its id when it completes; a failed remainder is a transfer of its own.
  const transferId = w.transfers[0]?.id ?? newId("trf");
  const reason = decision.outcome === "PAID" ? null : (decision.failureReason ?? defaultTransferFailure);
  let settled: WithdrawalRecord;
  if (decision.outcome === "PAID") {
    settled = {
      ...w,
      status: "PAID",
      paidAmountCents: net,
      transfers: [{ id: transferId, amountCents: net, status: "PAID", endToEndId: endToEndId(at), completedAt: at }],
    };
  } else if (decision.outcome === "PARTIALLY_PAID") {
    const paid = decision.paidAmountCents;
    if (paid <= 0 || paid >= net) {
      throw new DomainError(
        "REQUEST_ERROR",
        `paidAmountCents deve ser maior que 0 e menor que o valor líquido (${formatBRL(net)}).`,
      );
    }
    settled = {
      ...w,
      status: "PARTIALLY_PAID",
      paidAmountCents: paid,
      returnedAmountCents: net - paid,
      failureReason: reason,
      transfers: [
        { id: transferId, amountCents: paid, status: "PAID", endToEndId: endToEndId(at), completedAt: at },
        { id: newId("trf"), amountCents: net - paid, status: "FAILED", endToEndId: null, completedAt: at },
      ],
    };
  } else {
    settled = {
      ...w,
      status: "FAILED",
      paidAmountCents: 0,
      returnedAmountCents: w.amountCents,
      failureReason: reason,
      transfers: w.transfers.map((t) => ({ ...t, status: "FAILED" as const, completedAt: at })),
    };
  }
  return recordSettled(tx, w, { ...settled, updatedAt: at }, at);
}

/**
 * Ends a `PENDING` withdrawal paid out through the bank once every transfer has ended (each
 * `PAID` or `FAILED`, as `transfers` says): `PAID` when all were paid; `FAILED` when none was
 * (all of it, fee included, returns to the balance); otherwise `PARTIALLY_PAID`, the failed
 * transfers' amount back in the balance. In the caller's transaction, with the ledger entry and
 * the event. Null while a transfer is still pending.
 */
export async function finishWithdrawalTransfers(
  tx: StoreTx,
  w: WithdrawalRecord,
  transfers: WithdrawalRecord["transfers"],
  at: string,
): Promise<WithdrawalRecord | null> {
  if (w.status !== "PENDING" || transfers.some((t) => t.status === "PENDING")) return null;
  const paid = transfers.filter((t) => t.status === "PAID").reduce((sum, t) => sum + t.amountCents, 0);
  const failed = transfers.filter((t) => t.status === "FAILED");
  const failedCents = failed.reduce((sum, t) => sum + t.amountCents, 0);
  const reason = failed.length === 0 ? null : (failed[0]?.failureReason ?? defaultTransferFailure);
  const settled: WithdrawalRecord =
    failed.length === 0
      ? { ...w, status: "PAID", paidAmountCents: paid, transfers, updatedAt: at }
      : paid === 0
        ? {
            ...w,
            status: "FAILED",
            returnedAmountCents: w.amountCents,
            failureReason: reason,
            transfers,
            updatedAt: at,
          }
        : {
            ...w,
            status: "PARTIALLY_PAID",
            paidAmountCents: paid,
            returnedAmountCents: failedCents,
            failureReason: reason,
            transfers,
            updatedAt: at,
          };
  return recordSettled(tx, w, settled, at);
}

/** Writes a settled withdrawal, returns what came back to the balance, records its event. */
async function recordSettled(
  tx: StoreTx,
  w: WithdrawalRecord,
  settled: WithdrawalRecord,
  at: string,
): Promise<WithdrawalRecord> {
  await tx.withdrawals.update(settled);
  if (settled.returnedAmountCents > 0) {
    await tx.ledger.append({
      id: newId("led"),
      accountId: w.accountId,
      livemode: w.livemode,
      bucket: "available",
      amountCents: settled.returnedAmountCents,
      releaseAt: null,
      kind: "withdrawal_returned",
      refId: w.id,
      createdAt: at,
    });
  }
  const type =
    settled.status === "PAID"
      ? "withdrawal.paid"
      : settled.status === "PARTIALLY_PAID"
        ? "withdrawal.partially_paid"
        : "withdrawal.failed";
  await recordEvent(tx, w, type, presentWithdrawal(settled), at);
  return settled;
}

const defaultTransferFailure = "Transferência Pix recusada pela instituição de destino.";

/**
 * The withdrawals' use cases; `payouts` pays out production withdrawals through the bank when a
 * connection's dialect sends Pix (without it, or without such a connection, the acquirer's).
 */
export function withdrawalUseCases(deps: DomainDeps, payouts?: WithdrawalPayouts) {
  const now = () => deps.clock.now().toISOString();
  return {
    async create(actor: Caller, body: Schemas["CreateWithdrawalRequest"], idempotencyKey?: string) {
      checkAmountCents(body.amountCents, amountLimits.minWithdrawalCents);
      const key = normalizePixKey(body.pixKey, body.pixKeyType);
      if (!key.ok) throw fieldError("pixKey", `não é uma chave Pix válida do tipo ${body.pixKeyType}`);
      if (body.amountCents <= actor.account.plan.withdrawFeeCents) {
        throw new DomainError(
          "REQUEST_ERROR",
          `O valor do saque deve ser maior que a tarifa de saque (${formatBRL(actor.account.plan.withdrawFeeCents)}).`,
        );
      }
      requireActiveForProduction(actor);
      const at = now();
      // Production through the bank when its connection sends Pix (read before the transaction:
      // the bank's access answers from what it holds).
      const atBank = actor.scope.livemode && payouts !== undefined ? await payouts.available() : null;
      /** The record committed (its pass starts from it); unset when the create was a replay. */
      let created: WithdrawalRecord | undefined;
      const outcome = await deps.store.transaction(async (tx) => {
        created = undefined;
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createWithdrawal", idempotencyKey, body, at, async () => {
          const withdrawal = await reserveWithdrawal(deps, tx, actor, body, key.key, at, atBank);
          created = withdrawal;
          const shown = presentWithdrawal(withdrawal);
          await auditChange(tx, actor, {
            action: "withdrawal.requested",
            target: { type: "withdrawal", id: withdrawal.id },
            changes: {
              amountCents: { from: null, to: withdrawal.amountCents },
              pixKey: { from: null, to: shown.pixKey },
              pixKeyType: { from: null, to: withdrawal.pixKeyType },
            },
            at,
          });
          return { status: 201, body: shown };
        });
      });
      if (actor.scope.livemode && !outcome.replayed) {
        if (atBank && outcome.body.status === "PENDING") payouts?.follow(outcome.body.id, created);
        await notifyOwner(deps, actor, outcome.body);
      }
      return outcome;
    },

    async get(actor: ScopedCaller, id: string) {
      const w = await deps.store.read.withdrawals.get(actor.scope, id);
      if (!w) throw notFound();
      return presentWithdrawal(w);
    },

    async list(actor: ScopedCaller, page: PageRequest) {
      const result = await pageOrInvalidCursor(() => deps.store.read.withdrawals.list(actor.scope, page));
      return { data: result.items.map(presentWithdrawal), hasMore: result.hasMore };
    },
  };
}

/**
 * The owner hears of every production withdrawal, made in the dashboard or, as for one made there,
 * through the API: who asked for it (the user, or the key's prefix), how much, where to.
 */
async function notifyOwner(deps: DomainDeps, actor: Caller, w: Schemas["Withdrawal"]): Promise<void> {
  const by = actor.apiKey
    ? `pela API (chave ${actor.apiKey.prefix}…)`
    : `no painel por ${actor.user.name} (${actor.user.email})`;
  try {
    await deps.mailer.send({
      to: actor.account.ownerEmail,
      subject: `Saque de ${formatBRL(w.amountCents)} solicitado`,
      text: `Um saque de ${formatBRL(w.amountCents)} para a chave Pix ${w.pixKey} foi solicitado ${by}. Identificador: ${w.id}.`,
    });
  } catch (error) {
    // The withdrawal stands; a mail failure is logged, not surfaced as a failed withdrawal.
    deps.logger.error({ err: error, withdrawalId: w.id }, "withdrawal e-mail not sent");
  }
}
