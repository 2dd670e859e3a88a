/** `admin simulate …`: the settlement simulator, standing in for the acquirer in production. */
import { type Command, Option } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, int } from "../context.js";
import type { components } from "../../../../generated/admin-api.js";

type SettleOutcome = components["schemas"]["SettleWithdrawalRequest"]["outcome"];
type CloseOutcome = components["schemas"]["CloseDisputeRequest"]["outcome"];
type RefundOutcome = components["schemas"]["SettleRefundRequest"]["outcome"];
type AttemptCode = components["schemas"]["PixService.RecurringAttemptFailureCode"];

const transactionFields = ["id", "status", "amountCents", "feeCents", "netAmountCents", "livemode", "paidAt"];
const recurrenceFields = ["id", "status", "journey", "rejection.code", "cancellation.requestedBy", "cancellation.code"];
const attemptFields = ["id", "status", "amountCents", "dueDate", "recurrenceId", "livemode", "paidAt"];
const disputeFields = ["id", "status", "dispute.id", "dispute.status", "dispute.amountCents", "dispute.createdAt"];
const refundFields = ["id", "transactionId", "status", "amountCents", "endToEndId", "failureReason", "livemode"];
const withdrawalFields = [
  "id",
  "status",
  "amountCents",
  "paidAmountCents",
  "returnedAmountCents",
  "failureReason",
  "livemode",
];

export function registerSimulate(program: Command, ctx: CliContext): void {
  const simulate = program
    .command("simulate")
    .description("simulador de liquidação (pagamentos, saques, estornos, disputas)");

  simulate
    .command("pay")
    .description("paga uma cobrança de produção como o banco do pagador faria")
    .argument("<transactionId>", "a cobrança (txn_…)")
    .action(async (id: string) => {
      const paid = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/transactions/{id}/pay", { params: { path: { id } } }),
      );
      ctx.out.record(paid, transactionFields);
    });

  simulate
    .command("settle")
    .description("liquida um saque por inteiro, em parte ou não o liquida")
    .argument("<withdrawalId>", "o saque (wdr_…)")
    .addOption(
      new Option("--outcome <outcome>", "como termina")
        .choices(["PAID", "PARTIALLY_PAID", "FAILED"])
        .makeOptionMandatory(),
    )
    .option("--paid <cents>", "com PARTIALLY_PAID: centavos pagos", int)
    .option("--failure-reason <text>", "com FAILED: o motivo")
    .action(async (id: string, o: { outcome: SettleOutcome; paid?: number; failureReason?: string }) => {
      const body = {
        outcome: o.outcome,
        ...(o.paid !== undefined ? { paidAmountCents: o.paid } : {}),
        ...(o.failureReason !== undefined ? { failureReason: o.failureReason } : {}),
      };
      const settled = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/withdrawals/{id}/settle", { params: { path: { id } }, body }),
      );
      ctx.out.record(settled, withdrawalFields);
    });

  simulate
    .command("settle-refund")
    .description("conclui ou faz falhar um estorno de produção")
    .argument("<refundId>", "o estorno (rfd_…)")
    .addOption(new Option("--outcome <outcome>", "como termina").choices(["COMPLETED", "FAILED"]).makeOptionMandatory())
    .option("--failure-reason <text>", "com FAILED: o motivo")
    .action(async (id: string, o: { outcome: RefundOutcome; failureReason?: string }) => {
      const body = { outcome: o.outcome, ...(o.failureReason !== undefined ? { failureReason: o.failureReason } : {}) };
      const settled = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/refunds/{id}/settle", { params: { path: { id } }, body }),
      );
      ctx.out.record(settled, refundFields);
    });

  simulate
    .command("dispute")
    .description("abre um MED (devolução especial) sobre uma transação paga")
    .argument("<transactionId>", "a transação (txn_…)")
    .option("--amount <cents>", "valor contestado em centavos (padrão: tudo)", int)
    .action(async (id: string, o: { amount?: number }) => {
      const body = o.amount !== undefined ? { amountCents: o.amount } : {};
      const disputed = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/transactions/{id}/disputes", { params: { path: { id } }, body }),
      );
      ctx.out.record(disputed, disputeFields);
    });

  simulate
    .command("approve-recurrence")
    .description("o pagador aprova uma recorrência de produção (Pix Automático, jornada 2)")
    .argument("<recurrenceId>", "a recorrência (rec_…)")
    .option("--ceiling <cents>", "o teto de uma recorrência variável, definido pelo pagador", int)
    .action(async (id: string, o: { ceiling?: number }) => {
      const body = o.ceiling !== undefined ? { payerMaximumAmountCents: o.ceiling } : {};
      const approved = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/recurrences/{id}/approve", { params: { path: { id } }, body }),
      );
      ctx.out.record(approved, recurrenceFields);
    });

  simulate
    .command("reject-recurrence")
    .description("o lado do pagador recusa uma recorrência de produção")
    .argument("<recurrenceId>", "a recorrência (rec_…)")
    .addOption(new Option("--code <code>", "o código de rejeição do BCB").choices(["AP13", "AP14"]))
    .option("--reason <text>", "o motivo")
    .action(async (id: string, o: { code?: "AP13" | "AP14"; reason?: string }) => {
      const body = { ...(o.code ? { code: o.code } : {}), ...(o.reason ? { reason: o.reason } : {}) };
      const rejected = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/recurrences/{id}/reject", { params: { path: { id } }, body }),
      );
      ctx.out.record(rejected, recurrenceFields);
    });

  simulate
    .command("cancel-recurrence")
    .description("o pagador, o banco dele ou este serviço cancela uma recorrência de produção")
    .argument("<recurrenceId>", "a recorrência (rec_…)")
    .addOption(new Option("--by <who>", "quem cancela").choices(["PAYER", "PAYER_PSP", "RECEIVER_PSP"]))
    .option("--reason <text>", "o motivo")
    .action(async (id: string, o: { by?: "PAYER" | "PAYER_PSP" | "RECEIVER_PSP"; reason?: string }) => {
      const body = { ...(o.by ? { requestedBy: o.by } : {}), ...(o.reason ? { reason: o.reason } : {}) };
      const cancelled = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/recurrences/{id}/cancel", { params: { path: { id } }, body }),
      );
      ctx.out.record(cancelled, recurrenceFields);
    });

  simulate
    .command("settle-attempt")
    .description("o banco do pagador executa a tentativa agendada de uma cobrança de ciclo de produção")
    .argument("<transactionId>", "a cobrança do ciclo (txn_…)")
    .addOption(new Option("--outcome <outcome>", "como termina").choices(["PAID", "FAILED"]).makeOptionMandatory())
    .option("--reason-code <code>", "com FAILED: o código de motivo do BCB (AM04: saldo insuficiente)")
    .action(async (id: string, o: { outcome: "PAID" | "FAILED"; reasonCode?: string }) => {
      const body =
        o.outcome === "FAILED"
          ? { outcome: o.outcome, reasonCode: (o.reasonCode ?? "AM04") as AttemptCode }
          : { outcome: o.outcome };
      const settled = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/transactions/{id}/settle-attempt", {
          params: { path: { id } },
          body,
        }),
      );
      ctx.out.record(settled, attemptFields);
    });

  simulate
    .command("close-dispute")
    .description("encerra um MED: WON libera o valor bloqueado, LOST o devolve ao pagador")
    .argument("<disputeId>", "a disputa (dsp_…)")
    .addOption(new Option("--outcome <outcome>", "como termina").choices(["WON", "LOST"]).makeOptionMandatory())
    .action(async (id: string, o: { outcome: CloseOutcome }) => {
      const body = { outcome: o.outcome };
      const closed = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/disputes/{id}/close", { params: { path: { id } }, body }),
      );
      ctx.out.record(closed, disputeFields);
    });
}
