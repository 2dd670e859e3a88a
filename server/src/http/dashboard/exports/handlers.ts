import { brasiliaDate, spreadsheetDateTime } from "../../../domain/core/time.js";
import { spreadsheetReais } from "../../../domain/core/money.js";
import type { DashboardMode } from "../../../domain/identity/index.js";
import type { Schemas } from "../../../domain/core/model.js";
import type { Domain } from "../../../domain/service.js";
import { transactionStatusLabels, withdrawalStatusLabels } from "../../../../../generated/rules.js";
import { type CsvColumn, csvChunks } from "./format.js";
import { callerIn, type TagHandlers } from "../context.js";

// The CSV exports of one mode (spec/dashboard/exports.tsp): the columns, in Portuguese as the
// merchant's spreadsheet shows them, each amount in reais and in cents, each instant in Brasília
// time and as the API's UTC instant.

/** An amount's two columns: `Valor (R$)` = `129,90` and `Valor (centavos)` = `12990`. */
export function amount<T>(label: string, cents: (row: T) => number): CsvColumn<T>[] {
  return [
    { header: `${label} (R$)`, value: (row) => spreadsheetReais(cents(row)) },
    { header: `${label} (centavos)`, value: cents },
  ];
}

/** An instant's two columns: `24/11/2026 15:30` in Brasília, and the ISO instant. */
function instant<T>(label: string, at: (row: T) => string | null): CsvColumn<T>[] {
  return [
    { header: label, value: (row) => spreadsheetDateTime(at(row)) },
    { header: `${label} (ISO)`, value: at },
  ];
}

/** A calendar day `2030-12-13` as pt-BR writes it, `13/12/2030`; null for none. */
const spreadsheetDay = (day: string | null | undefined): string | null =>
  day ? `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}` : null;

/** An amount's two columns that only some rows have (a charge with a due date's breakdown): empty for the others. */
function optionalAmount<T>(label: string, cents: (row: T) => number | undefined): CsvColumn<T>[] {
  return [
    { header: `${label} (R$)`, value: (row) => (cents(row) === undefined ? null : spreadsheetReais(cents(row) ?? 0)) },
    { header: `${label} (centavos)`, value: (row) => cents(row) ?? null },
  ];
}

type Transaction = Schemas["Transaction"];
type Withdrawal = Schemas["Withdrawal"];

const transactionColumns: CsvColumn<Transaction>[] = [
  { header: "ID", value: (t) => t.id },
  { header: "Status", value: (t) => t.status },
  { header: "Situação", value: (t) => transactionStatusLabels[t.status] },
  ...amount<Transaction>("Valor", (t) => t.amountCents),
  ...amount<Transaction>("Tarifa", (t) => t.feeCents),
  ...amount<Transaction>("Líquido", (t) => t.netAmountCents),
  ...amount<Transaction>("Devolvido", (t) => t.refundedAmountCents),
  { header: "Descrição", value: (t) => t.description },
  { header: "Cliente", value: (t) => t.customer.name },
  { header: "E-mail do cliente", value: (t) => t.customer.email },
  { header: "Documento do cliente", value: (t) => t.customer.document },
  { header: "Link de pagamento", value: (t) => t.paymentLinkId ?? null },
  { header: "Recorrência", value: (t) => t.recurrenceId ?? null },
  { header: "Contestação", value: (t) => t.dispute?.status ?? null },
  ...instant<Transaction>("Criada em", (t) => t.createdAt),
  ...instant<Transaction>("Paga em", (t) => t.paidAt),
  ...instant<Transaction>("Expira em", (t) => t.expiresAt),
  // A charge with a due date (issue 38): its dates, and the breakdown of `Valor` (today's amount
  // while it waits, what was paid once paid; none once expired or cancelled). Empty for the others.
  { header: "Vencimento", value: (t) => spreadsheetDay(t.dueDateCharge?.terms.dueDate) },
  { header: "Pagável até", value: (t) => spreadsheetDay(t.dueDateCharge?.lastPayableDate) },
  { header: "Composição do dia", value: (t) => spreadsheetDay(t.dueDateCharge?.amountDue?.paymentDate) },
  ...optionalAmount<Transaction>("Valor original", (t) => t.dueDateCharge?.amountDue?.originalCents),
  ...optionalAmount<Transaction>("Abatimento", (t) => t.dueDateCharge?.amountDue?.rebateCents),
  ...optionalAmount<Transaction>("Desconto", (t) => t.dueDateCharge?.amountDue?.discountCents),
  ...optionalAmount<Transaction>("Multa", (t) => t.dueDateCharge?.amountDue?.fineCents),
  ...optionalAmount<Transaction>("Juros", (t) => t.dueDateCharge?.amountDue?.interestCents),
];

const withdrawalColumns: CsvColumn<Withdrawal>[] = [
  { header: "ID", value: (w) => w.id },
  { header: "Status", value: (w) => w.status },
  { header: "Situação", value: (w) => withdrawalStatusLabels[w.status] },
  ...amount<Withdrawal>("Valor", (w) => w.amountCents),
  ...amount<Withdrawal>("Tarifa", (w) => w.feeCents),
  ...amount<Withdrawal>("Líquido", (w) => w.netAmountCents),
  ...amount<Withdrawal>("Pago", (w) => w.paidAmountCents),
  ...amount<Withdrawal>("Devolvido", (w) => w.returnedAmountCents),
  { header: "Chave Pix", value: (w) => w.pixKey },
  { header: "Tipo de chave", value: (w) => w.pixKeyType },
  { header: "Motivo da falha", value: (w) => w.failureReason },
  ...instant<Withdrawal>("Criado em", (w) => w.createdAt),
  ...instant<Withdrawal>("Atualizado em", (w) => w.updatedAt),
];

/** The mode in a file's name, in Portuguese as the merchant reads it. */
export const modeInName: Record<DashboardMode, string> = { test: "teste", production: "producao" };

/** `attachment; filename="transacoes-teste-2026-11-24.csv"` (spec/dashboard/exports.tsp `CsvFile`). */
const attachment = (kind: "transacoes" | "saques", mode: DashboardMode, asOf: string) =>
  `attachment; filename="${kind}-${modeInName[mode]}-${brasiliaDate(asOf)}.csv"`;

export function exportHandlers(domain: Domain): TagHandlers<"Exports"> {
  return {
    exportDashboardTransactions: async ({ params, query }, ctx) => {
      const { asOf, pages } = await domain.exports.transactions(callerIn(ctx, params.mode), query);
      return {
        status: 200,
        body: { mediaType: "text/csv", chunks: csvChunks(transactionColumns, pages) },
        headers: { "Content-Disposition": attachment("transacoes", params.mode, asOf) },
      };
    },
    exportDashboardWithdrawals: async ({ params }, ctx) => {
      const { asOf, pages } = await domain.exports.withdrawals(callerIn(ctx, params.mode));
      return {
        status: 200,
        body: { mediaType: "text/csv", chunks: csvChunks(withdrawalColumns, pages) },
        headers: { "Content-Disposition": attachment("saques", params.mode, asOf) },
      };
    },
  };
}
