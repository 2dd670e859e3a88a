/** `admin deliveries …` and `admin events …`: what was sent to webhook endpoints, and sending it again. */
import { type Command, Option } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, type PageOptions, pageQuery, withPageOptions } from "../context.js";
import { table } from "../output.js";
import type { components } from "../../../../generated/admin-api.js";

type Mode = components["schemas"]["Mode"];

const deliveryColumns = ["id", "eventId", "status", "nextAttemptAt"];
const replayColumns = ["id", "endpointId", "status", "nextAttemptAt"];
const eventColumns = ["id", "type", "livemode", "createdAt"];

export function registerDeliveries(program: Command, ctx: CliContext): void {
  const deliveries = program.command("deliveries").description("entregas de webhook e reenvios");

  withPageOptions(
    deliveries
      .command("list")
      .description("lista as entregas de um endpoint de webhook, as mais novas primeiro")
      .argument("<endpointId>", "o endpoint (we_…)"),
  ).action(async (id: string, o: PageOptions) => {
    const page = unwrap(
      await ctx.operator().GET("/admin/v1/webhook-endpoints/{id}/deliveries", {
        params: { path: { id }, query: pageQuery(o) },
      }),
    );
    ctx.out.list(page, deliveryColumns);
  });

  deliveries
    .command("replay")
    .description("entrega um evento de novo a cada endpoint da conta inscrito nele")
    .argument("<eventId>", "o evento (evt_…)")
    .action(async (id: string) => {
      const result = unwrap(await ctx.operator().POST("/admin/v1/events/{id}/replay", { params: { path: { id } } }));
      ctx.out.print(result, () => table(result.deliveries, replayColumns));
    });
}

export function registerEvents(program: Command, ctx: CliContext): void {
  const events = program.command("events").description("eventos das contas de lojistas");

  withPageOptions(
    events
      .command("list")
      .description("lista os eventos de uma conta em um modo, os mais novos primeiro")
      .argument("<accountId>", "a conta (acc_…)")
      .addOption(
        new Option("--mode <mode>", "os eventos de qual modo").choices(["test", "production"]).default("test"),
      ),
  ).action(async (id: string, o: PageOptions & { mode: Mode }) => {
    const page = unwrap(
      await ctx.operator().GET("/admin/v1/accounts/{id}/events", {
        params: { path: { id }, query: { mode: o.mode, ...pageQuery(o) } },
      }),
    );
    ctx.out.list(page, eventColumns);
  });
}
