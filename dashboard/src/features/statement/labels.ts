import type { components } from "../../../../generated/dashboard-api";

/** A statement's movement (spec/dashboard/statement.tsp). */
export type StatementEntry = components["schemas"]["StatementEntry"];

/** Each movement's type in the dashboard's words (the CSV writes the same, server/src/http/dashboard/statement.ts). */
export const movementLabel: Record<StatementEntry["type"], string> = {
  payment: "Pix recebido",
  release: "Liberação do saldo a liberar",
  early_release: "Liberação antecipada (teste)",
  refund: "Devolução",
  refund_failed: "Devolução que falhou (estorno)",
  withdrawal: "Saque",
  withdrawal_returned: "Saque: parte que falhou (estorno)",
  dispute_opened: "Bloqueio por MED",
  dispute_won: "MED encerrada: desbloqueio",
  dispute_lost: "MED encerrada: devolvido ao pagador",
};
