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
  const simulate = program.command("simulate").description("settlement simulator (pays, settles, refunds, disputes)");

  simulate
    .command("pay")
    .description("pay a production charge as the payer's bank would")
    .argument("<transactionId>", "the charge (txn_…)")
    .action(async (id: string) => {
      const paid = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/transactions/{id}/pay", { params: { path: { id } } }),
      );
      ctx.out.record(paid, transactionFields);
    });

  simulate
    .command("settle")
    .description("settle a withdrawal fully, partly or not at all")
    .argument("<withdrawalId>", "the withdrawal (wdr_…)")
    .addOption(
      new Option("--outcome <outcome>", "how it ends")
        .choices(["PAID", "PARTIALLY_PAID", "FAILED"])
        .makeOptionMandatory(),
    )
    .option("--paid <cents>", "with PARTIALLY_PAID: cents paid", int)
    .option("--failure-reason <text>", "with FAILED: why")
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
    .description("complete or fail a production refund")
    .argument("<refundId>", "the refund (rfd_…)")
    .addOption(new Option("--outcome <outcome>", "how it ends").choices(["COMPLETED", "FAILED"]).makeOptionMandatory())
    .option("--failure-reason <text>", "with FAILED: why")
    .action(async (id: string, o: { outcome: RefundOutcome; failureReason?: string }) => {
      const body = { outcome: o.outcome, ...(o.failureReason !== undefined ? { failureReason: o.failureReason } : {}) };
      const settled = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/refunds/{id}/settle", { params: { path: { id } }, body }),
      );
      ctx.out.record(settled, refundFields);
    });

  simulate
    .command("dispute")
    .description("open a MED (special return) on a paid transaction")
    .argument("<transactionId>", "the transaction (txn_…)")
    .option("--amount <cents>", "contested amount in cents (default: all)", int)
    .action(async (id: string, o: { amount?: number }) => {
      const body = o.amount !== undefined ? { amountCents: o.amount } : {};
      const disputed = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/transactions/{id}/disputes", { params: { path: { id } }, body }),
      );
      ctx.out.record(disputed, disputeFields);
    });

  simulate
    .command("approve-recurrence")
    .description("the payer approves a production recurrence (Pix Automático, journey 2)")
    .argument("<recurrenceId>", "the recurrence (rec_…)")
    .option("--ceiling <cents>", "a variable recurrence's ceiling set by the payer", int)
    .action(async (id: string, o: { ceiling?: number }) => {
      const body = o.ceiling !== undefined ? { payerMaximumAmountCents: o.ceiling } : {};
      const approved = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/recurrences/{id}/approve", { params: { path: { id } }, body }),
      );
      ctx.out.record(approved, recurrenceFields);
    });

  simulate
    .command("reject-recurrence")
    .description("the payer's side refuses a production recurrence")
    .argument("<recurrenceId>", "the recurrence (rec_…)")
    .addOption(new Option("--code <code>", "the BCB's rejection code").choices(["AP13", "AP14"]))
    .option("--reason <text>", "why")
    .action(async (id: string, o: { code?: "AP13" | "AP14"; reason?: string }) => {
      const body = { ...(o.code ? { code: o.code } : {}), ...(o.reason ? { reason: o.reason } : {}) };
      const rejected = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/recurrences/{id}/reject", { params: { path: { id } }, body }),
      );
      ctx.out.record(rejected, recurrenceFields);
    });

  simulate
    .command("cancel-recurrence")
    .description("the payer, their bank or this service cancels a production recurrence")
    .argument("<recurrenceId>", "the recurrence (rec_…)")
    .addOption(new Option("--by <who>", "who cancels").choices(["PAYER", "PAYER_PSP", "RECEIVER_PSP"]))
    .option("--reason <text>", "why")
    .action(async (id: string, o: { by?: "PAYER" | "PAYER_PSP" | "RECEIVER_PSP"; reason?: string }) => {
      const body = { ...(o.by ? { requestedBy: o.by } : {}), ...(o.reason ? { reason: o.reason } : {}) };
      const cancelled = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/recurrences/{id}/cancel", { params: { path: { id } }, body }),
      );
      ctx.out.record(cancelled, recurrenceFields);
    });

  simulate
    .command("settle-attempt")
    .description("the payer's bank plays a production cycle charge's scheduled attempt")
    .argument("<transactionId>", "the cycle charge (txn_…)")
    .addOption(new Option("--outcome <outcome>", "how it ends").choices(["PAID", "FAILED"]).makeOptionMandatory())
    .option("--reason-code <code>", "with FAILED: the BCB's reason code (AM04: insufficient balance)")
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
    .description("close a MED: WON releases the blocked amount, LOST returns it to the payer")
    .argument("<disputeId>", "the dispute (dsp_…)")
    .addOption(new Option("--outcome <outcome>", "how it ends").choices(["WON", "LOST"]).makeOptionMandatory())
    .action(async (id: string, o: { outcome: CloseOutcome }) => {
      const body = { outcome: o.outcome };
      const closed = unwrap(
        await ctx.operator().POST("/admin/v1/simulator/disputes/{id}/close", { params: { path: { id } }, body }),
      );
      ctx.out.record(closed, disputeFields);
    });
}
