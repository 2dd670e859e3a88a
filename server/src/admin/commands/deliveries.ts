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
  const deliveries = program.command("deliveries").description("webhook deliveries and replays");

  withPageOptions(
    deliveries
      .command("list")
      .description("list a webhook endpoint's deliveries, newest first")
      .argument("<endpointId>", "the endpoint (we_…)"),
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
    .description("deliver an event again to every endpoint of its account that subscribes to it")
    .argument("<eventId>", "the event (evt_…)")
    .action(async (id: string) => {
      const result = unwrap(await ctx.operator().POST("/admin/v1/events/{id}/replay", { params: { path: { id } } }));
      ctx.out.print(result, () => table(result.deliveries, replayColumns));
    });
}

export function registerEvents(program: Command, ctx: CliContext): void {
  const events = program.command("events").description("events of merchant accounts");

  withPageOptions(
    events
      .command("list")
      .description("list an account's events of one mode, newest first")
      .argument("<accountId>", "the account (acc_…)")
      .addOption(new Option("--mode <mode>", "which mode's events").choices(["test", "production"]).default("test")),
  ).action(async (id: string, o: PageOptions & { mode: Mode }) => {
    const page = unwrap(
      await ctx.operator().GET("/admin/v1/accounts/{id}/events", {
        params: { path: { id }, query: { mode: o.mode, ...pageQuery(o) } },
      }),
    );
    ctx.out.list(page, eventColumns);
  });
}
