/** `admin simulate …`: the settlement simulator, standing in for the acquirer in production. */
import { type Command, Option } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, int } from "../context.js";
import type { components } from "../../../../generated/admin-api.js";

type SettleOutcome = components["schemas"]["SettleWithdrawalRequest"]["outcome"];
type CloseOutcome = components["schemas"]["CloseDisputeRequest"]["outcome"];
type RefundOutcome = components["schemas"]["SettleRefundRequest"]["outcome"];

const transactionFields = ["id", "status", "amountCents", "feeCents", "netAmountCents", "livemode", "paidAt"];
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
