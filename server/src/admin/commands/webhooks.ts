/** `admin webhooks …`: an account's webhook endpoints (the signing secret is printed at creation and rotation). */
import { type Command, Option } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, list } from "../context.js";
import type { components } from "../../../../generated/admin-api.js";

type EventType = components["schemas"]["WebhookEventType"];
type Mode = components["schemas"]["Mode"];

const listColumns = ["id", "mode", "enabled", "url", "events"];
const fields = ["id", "accountId", "mode", "url", "events", "enabled", "createdAt", "updatedAt"];

export function registerWebhooks(program: Command, ctx: CliContext): void {
  const webhooks = program.command("webhooks").description("webhook endpoints of merchant accounts");

  webhooks
    .command("create")
    .description("register a webhook endpoint; its signing secret is printed this once")
    .argument("<accountId>", "the account (acc_…)")
    .requiredOption("--url <url>", "where events are POSTed (https and public in production)")
    .requiredOption("--events <list>", "comma-separated event kinds, e.g. transaction.paid", list)
    .addOption(new Option("--mode <mode>", "which mode's events").choices(["test", "production"]).default("test"))
    .action(async (accountId: string, o: { url: string; events: EventType[]; mode: Mode }) => {
      const body = { url: o.url, mode: o.mode, events: o.events };
      const created = unwrap(
        await ctx.operator().POST("/admin/v1/accounts/{id}/webhook-endpoints", {
          params: { path: { id: accountId } },
          body,
        }),
      );
      ctx.out.record(created, [...fields, "secret"]);
      ctx.out.note("Store the secret now: it is not shown again.");
    });

  webhooks
    .command("list")
    .description("list an account's webhook endpoints")
    .argument("<accountId>", "the account (acc_…)")
    .action(async (id: string) => {
      const page = unwrap(
        await ctx.operator().GET("/admin/v1/accounts/{id}/webhook-endpoints", { params: { path: { id } } }),
      );
      ctx.out.list(page, listColumns);
    });

  webhooks
    .command("update")
    .description("change an endpoint's URL or event kinds, or enable or disable it")
    .argument("<endpointId>", "the endpoint (we_…)")
    .option("--url <url>", "where events are POSTed")
    .option("--events <list>", "comma-separated event kinds", list)
    .option("--enable", "deliver to it again")
    .option("--disable", "stop delivering to it")
    .action(async (id: string, o: { url?: string; events?: EventType[]; enable?: boolean; disable?: boolean }) => {
      const body = {
        ...(o.url !== undefined ? { url: o.url } : {}),
        ...(o.events ? { events: o.events } : {}),
        ...(o.enable ? { enabled: true } : o.disable ? { enabled: false } : {}),
      };
      const updated = unwrap(
        await ctx.operator().PATCH("/admin/v1/webhook-endpoints/{id}", { params: { path: { id } }, body }),
      );
      ctx.out.record(updated, fields);
    });

  webhooks
    .command("delete")
    .description("delete a webhook endpoint")
    .argument("<endpointId>", "the endpoint (we_…)")
    .action(async (id: string) => {
      const res = await ctx.operator().DELETE("/admin/v1/webhook-endpoints/{id}", { params: { path: { id } } });
      if (!res.response.ok) unwrap(res);
      ctx.out.record({ id, deleted: true }, ["id", "deleted"]);
    });

  webhooks
    .command("rotate-secret")
    .description("issue a new signing secret; the old one keeps signing for 24 hours")
    .argument("<endpointId>", "the endpoint (we_…)")
    .action(async (id: string) => {
      const rotated = unwrap(
        await ctx.operator().POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id } } }),
      );
      ctx.out.record(rotated, [...fields, "secret"]);
    });
}
