import { brasiliaDate, spreadsheetDateTime } from "../../domain/core/time.js";
import type { StatementMovement } from "../../domain/reports/index.js";
import type { Domain } from "../../domain/service.js";
import { pageFromQuery } from "../router.js";
import { type CsvColumn, csvChunks } from "./exports/format.js";
import { callerIn, type TagHandlers } from "./context.js";
import { amount, modeInName } from "./exports/handlers.js";

// The statement of one mode (spec/dashboard/statement.tsp): a page of it, or all of it as CSV with
// the transactions' export's conventions (exports.ts, csv.ts).

/** A movement's type as the dashboard writes it (dashboard/src/features/statement/labels.ts). */
const typeLabel: Record<StatementMovement["type"], string> = {
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

const columns: CsvColumn<StatementMovement>[] = [
  { header: "ID", value: (m) => m.id },
  { header: "Tipo", value: (m) => m.type },
  { header: "Movimento", value: (m) => typeLabel[m.type] },
  ...amount<StatementMovement>("Valor bruto", (m) => m.grossAmountCents),
  ...amount<StatementMovement>("Tarifa", (m) => m.feeCents),
  ...amount<StatementMovement>("Valor", (m) => m.amountCents),
  ...amount<StatementMovement>("Disponível", (m) => m.availableCents),
  ...amount<StatementMovement>("A liberar", (m) => m.pendingCents),
  ...amount<StatementMovement>("Bloqueado", (m) => m.blockedCents),
  ...amount<StatementMovement>("Saldo disponível depois", (m) => m.balanceAfter.availableCents),
  ...amount<StatementMovement>("Saldo a liberar depois", (m) => m.balanceAfter.pendingCents),
  ...amount<StatementMovement>("Saldo bloqueado depois", (m) => m.balanceAfter.blockedCents),
  ...amount<StatementMovement>("Saldo total depois", (m) => m.balanceAfter.totalCents),
  { header: "Origem", value: (m) => m.sourceId },
  { header: "Transação", value: (m) => m.transactionId },
  { header: "Descrição", value: (m) => m.description },
  { header: "Data", value: (m) => spreadsheetDateTime(m.createdAt) },
  { header: "Data (ISO)", value: (m) => m.createdAt },
];

export function statementHandlers(domain: Domain): TagHandlers<"Statement"> {
  return {
    getDashboardStatement: async ({ params, query }, ctx) => {
      const { createdFrom, createdTo } = query;
      return {
        status: 200,
        body: await domain.statement.page(callerIn(ctx, params.mode), { createdFrom, createdTo }, pageFromQuery(query)),
      };
    },
    exportDashboardStatement: async ({ params, query }, ctx) => {
      const { createdFrom, createdTo } = query;
      const { asOf, pages } = await domain.exports.statement(callerIn(ctx, params.mode), { createdFrom, createdTo });
      return {
        status: 200,
        body: { mediaType: "text/csv", chunks: csvChunks(columns, pages) },
        headers: {
          "Content-Disposition": `attachment; filename="extrato-${modeInName[params.mode]}-${brasiliaDate(asOf)}.csv"`,
        },
      };
    },
  };
}
