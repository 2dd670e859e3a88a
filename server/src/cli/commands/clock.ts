/** `admin clock …`: the manual clock of a server started with PIX_MANUAL_CLOCK=1. */
import type { Command } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, int } from "../context.js";

export function registerClock(program: Command, ctx: CliContext): void {
  const clock = program.command("clock").description("o relógio manual (servidor iniciado com PIX_MANUAL_CLOCK=1)");

  clock
    .command("get")
    .description("mostra a hora atual do servidor")
    .action(async () => {
      ctx.out.record(unwrap(await ctx.operator().GET("/admin/v1/clock")), ["now"]);
    });

  clock
    .command("advance")
    .description("adianta o relógio, executando o que vencer no caminho")
    .argument("<seconds>", "quantos segundos", int)
    .action(async (seconds: number) => {
      ctx.out.record(unwrap(await ctx.operator().POST("/admin/v1/clock/advance", { body: { seconds } })), ["now"]);
    });
}
