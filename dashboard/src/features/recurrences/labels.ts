import type { components } from "../../../../generated/dashboard-api";

// Pix Automático's codes in the words the dashboard shows. Each table is keyed by the document's
// enumeration (generated types), so a code added to the spec fails the build until it has words.

type Schemas = components["schemas"];
export type RecurrenceStatus = Schemas["PixService.RecurrenceStatus"];
export type FailureCode = Schemas["PixService.RecurringAttemptFailureCode"];

export const recurrenceStatusLabel: Record<RecurrenceStatus, string> = {
  CREATED: "Aguardando aprovação",
  APPROVED: "Aprovada",
  REJECTED: "Recusada",
  EXPIRED: "Expirada",
  CANCELLED: "Cancelada",
};

export const recurrenceStatusTone: Record<RecurrenceStatus, "ok" | "warn" | "danger" | "neutral"> = {
  CREATED: "warn",
  APPROVED: "ok",
  REJECTED: "danger",
  EXPIRED: "neutral",
  CANCELLED: "neutral",
};

export const periodicityLabel: Record<Schemas["PixService.RecurrencePeriodicity"], string> = {
  WEEKLY: "Semanal",
  MONTHLY: "Mensal",
  QUARTERLY: "Trimestral",
  SEMIANNUAL: "Semestral",
  ANNUAL: "Anual",
};

export const journeyLabel: Record<Schemas["PixService.RecurrenceJourney"], string> = {
  JOURNEY_2: "Jornada 2: o pagador lê o QR code da recorrência e autoriza no app do banco",
  JOURNEY_3: "Jornada 3: o pagador paga uma cobrança agora e, com ela, autoriza a recorrência",
};

export const retryPolicyLabel: Record<Schemas["PixService.RetryPolicy"], string> = {
  NO_RETRY: "Não tentar de novo",
  RETRY_3_IN_7_DAYS: "Tentar de novo: até 3 vezes em 7 dias",
};

export const cancelledByLabel: Record<Schemas["PixService.RecurrenceCancelledBy"], string> = {
  PAYER: "o pagador",
  PAYER_PSP: "a instituição do pagador",
  MERCHANT: "você (o recebedor)",
  RECEIVER_PSP: "o provedor do recebedor",
};

export const attemptTypeLabel: Record<Schemas["PixService.RecurringAttemptType"], string> = {
  SCHEDULED: "Agendada",
  RETRY: "Nova tentativa",
};

export const attemptStatusLabel: Record<Schemas["PixService.RecurringAttemptStatus"], string> = {
  SCHEDULED: "agendada",
  PAID: "paga",
  FAILED: "recusada",
  CANCELLED: "cancelada",
};

/**
 * What a reason code says, where its meaning is certain (the server's words for the same codes);
 * the others are named as codes of the Central Bank's Pix message catalogue.
 */
const failureCodeMeaning: Partial<Record<FailureCode, string>> = {
  AM04: "saldo ou limite insuficiente",
  AC05: "conta do pagador encerrada",
  AC06: "conta do pagador bloqueada",
  AM02: "valor acima do limite autorizado pelo pagador",
  AM09: "valor diferente do autorizado",
};

/** `AM04 — saldo ou limite insuficiente`, or `DENC — recusa da instituição do pagador`. */
export const failureCodeText = (code: string): string =>
  `${code} — ${failureCodeMeaning[code as FailureCode] ?? "recusa da instituição do pagador"}`;
