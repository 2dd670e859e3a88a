import { randomBytes } from "node:crypto";
import type { BankAccess } from "../../src/domain/deps.js";
import {
  type BankCharge,
  type BankChargeRequest,
  type BankRefund,
  BankRefusedError,
  BankUnavailableError,
  type PixBank,
  type ReceivedPix,
} from "../../src/domain/ports/pix-bank.js";

// A test double of the platform's bank (the `PixBank` port), in memory: what the domain asked for,
// what a payer paid, and knobs for a slow, down or refusing bank. The end-to-end tests run the
// real adapter against the fake bank (fake-bank/); these test the domain's rules alone.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How the double answers a call: at once, after `delayMs`, not at all (`down`), or refusing. */
export type Behaviour = { kind: "ok"; delayMs?: number } | { kind: "down" } | { kind: "refuse"; detail: string };

export class PixBankDouble implements PixBank {
  readonly pixKey = "pix@plataforma.example";
  readonly charges = new Map<string, BankCharge & { request: BankChargeRequest }>();
  readonly received = new Map<string, ReceivedPix>();
  readonly registerCalls: string[] = [];
  readonly removed: string[] = [];
  readonly refundRequests: Array<{ endToEndId: string; refundId: string; amountCents: number }> = [];
  /** How `registerCharge` answers. */
  registering: Behaviour = { kind: "ok" };
  /** How `requestRefund` answers, and the status a devolução it accepts starts in. */
  refunding: Behaviour = { kind: "ok" };
  refundStatus: BankRefund["status"] = "DEVOLVIDO";
  /** Every other call: `down` throws `BankUnavailableError`. */
  reading: Behaviour = { kind: "ok" };
  /** Items per page of `listReceived`. */
  pageSize = 2;

  /** The `DomainDeps.bank` that answers this double (or null: no connection). */
  access(waitMs = 200): BankAccess & { connected: boolean } {
    const access = {
      connected: true,
      waitMs,
      current: async () => (access.connected ? this : null),
    };
    return access;
  }

  private async behave(behaviour: Behaviour): Promise<void> {
    if (behaviour.kind === "down") throw new BankUnavailableError("o banco não respondeu (dublê)");
    if (behaviour.kind === "refuse") throw new BankRefusedError(400, behaviour.detail);
    if (behaviour.delayMs) await sleep(behaviour.delayMs);
  }

  async registerCharge(request: BankChargeRequest): Promise<BankCharge> {
    this.registerCalls.push(request.txid);
    await this.behave(this.registering);
    const existing = this.charges.get(request.txid);
    if (existing) return existing;
    const charge = {
      txid: request.txid,
      status: "ATIVA" as const,
      amountCents: request.amountCents,
      copyPaste: `00020101021226830014br.gov.bcb.pix2561banco.example/qr/v2/${request.txid}5204000053039865802BR6304ABCD`,
      revision: 0,
      request,
    };
    this.charges.set(request.txid, charge);
    return charge;
  }

  async removeCharge(txid: string): Promise<void> {
    await this.behave(this.reading);
    this.removed.push(txid);
    const charge = this.charges.get(txid);
    if (charge) this.charges.set(txid, { ...charge, status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" });
  }

  async readCharge(txid: string): Promise<BankCharge | null> {
    await this.behave(this.reading);
    return this.charges.get(txid) ?? null;
  }

  async readReceived(endToEndId: string): Promise<ReceivedPix | null> {
    await this.behave(this.reading);
    return this.received.get(endToEndId) ?? null;
  }

  async listReceived(window: { from: string; to: string }, page: number) {
    await this.behave(this.reading);
    const all = [...this.received.values()].filter((p) => p.paidAt >= window.from && p.paidAt < window.to);
    return {
      items: all.slice(page * this.pageSize, (page + 1) * this.pageSize),
      pages: Math.max(1, Math.ceil(all.length / this.pageSize)),
    };
  }

  async requestRefund(request: { endToEndId: string; refundId: string; amountCents: number }): Promise<BankRefund> {
    this.refundRequests.push(request);
    await this.behave(this.refunding);
    const pix = this.received.get(request.endToEndId);
    if (!pix) throw new BankRefusedError(404, "Pix não encontrado");
    const known = pix.refunds.find((r) => r.refundId === request.refundId);
    if (known) return known;
    const refund: BankRefund = {
      refundId: request.refundId,
      returnId: `D${randomBytes(15).toString("hex").slice(0, 31)}`,
      amountCents: request.amountCents,
      nature: "ORIGINAL",
      status: this.refundStatus,
      reason: this.refundStatus === "NAO_REALIZADO" ? "Conta do pagador encerrada" : null,
    };
    this.received.set(pix.endToEndId, { ...pix, refunds: [...pix.refunds, refund] });
    return refund;
  }

  async readRefund(endToEndId: string, refundId: string): Promise<BankRefund | null> {
    await this.behave(this.reading);
    return this.received.get(endToEndId)?.refunds.find((r) => r.refundId === refundId) ?? null;
  }

  async registerWebhook(): Promise<void> {}

  /** A payer of another bank pays: a received Pix (to our key unless `key` says otherwise). */
  pay(input: { txid: string | null; amountCents: number; key?: string; paidAt?: string }): ReceivedPix {
    const pix: ReceivedPix = {
      endToEndId: `E00000000${Date.now()}${randomBytes(6).toString("hex")}`.slice(0, 32),
      key: input.key ?? this.pixKey,
      txid: input.txid,
      amountCents: input.amountCents,
      paidAt: input.paidAt ?? new Date().toISOString(),
      payer: { name: "Pagador de Outro Banco", documentType: "CPF", document: "52998224725" },
      refunds: [],
    };
    this.received.set(pix.endToEndId, pix);
    return pix;
  }

  /** The bank reports a devolução on a received Pix (a MED, or the end of one of ours). */
  setRefund(endToEndId: string, refund: BankRefund): void {
    const pix = this.received.get(endToEndId);
    if (!pix) throw new Error(`no received Pix ${endToEndId}`);
    this.received.set(endToEndId, {
      ...pix,
      refunds: [...pix.refunds.filter((r) => r.refundId !== refund.refundId), refund],
    });
  }

  /** The charge registered for our charge `id`. */
  chargeOf(id: string) {
    return this.charges.get(`svc${id.replace("_", "")}`);
  }
}
