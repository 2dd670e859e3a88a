/**
 * The recurrence (Pix Automático) kinds of `admin trigger`: a test recurrence, its payer's moves
 * through the sandbox, and a cycle charge sent by advancing its calendar, all through the public
 * API with a test key.
 */
import { randomUUID } from "node:crypto";
import { type PartnerClient, unwrap } from "../clients.js";
import type { components } from "../../../../generated/api.js";

type Recurrence = components["schemas"]["Recurrence"];
type Transaction = components["schemas"]["Transaction"];

/** One object the trigger created or changed, as printed. */
interface Created {
  object: string;
  id: string;
  status: string;
}

const payer = {
  name: "Maria da Silva Santos",
  email: "maria.santos@example.com",
  phone: "11987654321",
  documentType: "CPF" as const,
  document: "52998224725",
};

const idempotent = () => ({ header: { "idempotency-key": `cli-trigger_${randomUUID()}` } });

/** A date `days` after today on this machine's Brasília calendar, `YYYY-MM-DD`. */
function dateAhead(days: number): string {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function recurrenceSteps(api: PartnerClient, created: Created[]) {
  const record = (object: string, made: { id: string; status: string }) => {
    created.push({ object, id: made.id, status: made.status });
  };

  /** A monthly R$ 49,90 test recurrence (journey 2), its first cycle a month ahead, charged automatically. */
  const recurrence = async (): Promise<Recurrence> => {
    const made = unwrap(
      await api.POST("/api/v1/recurrences", {
        params: idempotent(),
        body: {
          payer,
          contractReference: "TRIGGER-CLI",
          description: "Evento de teste (trigger)",
          periodicity: "MONTHLY",
          firstDate: dateAhead(30),
          amountCents: 4990,
          retryPolicy: "RETRY_3_IN_7_DAYS",
          automaticCharges: true,
          journey: "JOURNEY_2",
        },
      }),
    );
    record("recurrence", made);
    return made;
  };
  const sandbox = async (
    action: "approve" | "reject" | "cancel-by-payer" | "expire" | "advance",
    id: string,
  ): Promise<Recurrence> => {
    const params = { ...idempotent(), path: { id } };
    const made =
      action === "approve"
        ? await api.POST("/api/v1/sandbox/recurrences/{id}/approve", { params, body: {} })
        : action === "reject"
          ? await api.POST("/api/v1/sandbox/recurrences/{id}/reject", { params, body: {} })
          : action === "cancel-by-payer"
            ? await api.POST("/api/v1/sandbox/recurrences/{id}/cancel-by-payer", { params, body: {} })
            : action === "expire"
              ? await api.POST("/api/v1/sandbox/recurrences/{id}/expire", { params })
              : await api.POST("/api/v1/sandbox/recurrences/{id}/advance", { params });
    const recurrence = unwrap(made);
    record("recurrence", recurrence);
    return recurrence;
  };
  const approved = async () => sandbox("approve", (await recurrence()).id);

  /** An approved recurrence advanced to its first cycle: the cycle's charge, sent automatically. */
  const cycleCharge = async (): Promise<Transaction> => {
    const advanced = await sandbox("advance", (await approved()).id);
    const list = unwrap(
      await api.GET("/api/v1/transactions", { params: { query: { recurrenceId: advanced.id, limit: 1 } } }),
    );
    const charge = list.data[0];
    if (!charge) throw new Error(`nenhuma cobrança de ciclo depois de adiantar ${advanced.id}`);
    record("charge", charge);
    return charge;
  };
  const settle = async (id: string, reasonCode: "AM04" | "AC05") => {
    const settled = unwrap(
      await api.POST("/api/v1/sandbox/transactions/{id}/settle-attempt", {
        params: { ...idempotent(), path: { id } },
        body: { outcome: "FAILED", reasonCode },
      }),
    );
    record("charge", settled);
  };

  return {
    created: recurrence,
    approved,
    rejected: async () => sandbox("reject", (await recurrence()).id),
    expired: async () => sandbox("expire", (await recurrence()).id),
    cancelled: async () => sandbox("cancel-by-payer", (await approved()).id),
    chargeCreated: cycleCharge,
    /** Insufficient balance (AM04): a retry follows. */
    chargeRetrying: async () => settle((await cycleCharge()).id, "AM04"),
    /** The payer's account is closed (AC05): no retry, the charge fails. */
    chargeFailed: async () => settle((await cycleCharge()).id, "AC05"),
    /** The merchant cancels it before the day of its attempt. */
    chargeCancelled: async () => {
      const charge = await cycleCharge();
      const cancelled = unwrap(
        await api.POST("/api/v1/transactions/{id}/cancel", { params: { ...idempotent(), path: { id: charge.id } } }),
      );
      record("charge", cancelled);
    },
  };
}
