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
  const webhooks = program.command("webhooks").description("endpoints de webhook das contas de lojistas");

  webhooks
    .command("create")
    .description("cadastra um endpoint de webhook; o segredo de assinatura é impresso só esta vez")
    .argument("<accountId>", "a conta (acc_…)")
    .requiredOption("--url <url>", "para onde os eventos são enviados por POST (https e público em produção)")
    .requiredOption("--events <list>", "tipos de evento separados por vírgula, por exemplo transaction.paid", list)
    .addOption(new Option("--mode <mode>", "os eventos de qual modo").choices(["test", "production"]).default("test"))
    .action(async (accountId: string, o: { url: string; events: EventType[]; mode: Mode }) => {
      const body = { url: o.url, mode: o.mode, events: o.events };
      const created = unwrap(
        await ctx.operator().POST("/admin/v1/accounts/{id}/webhook-endpoints", {
          params: { path: { id: accountId } },
          body,
        }),
      );
      ctx.out.record(created, [...fields, "secret"]);
      ctx.out.note("Guarde o segredo agora: ele não é mostrado de novo.");
    });

  webhooks
    .command("list")
    .description("lista os endpoints de webhook de uma conta")
    .argument("<accountId>", "a conta (acc_…)")
    .action(async (id: string) => {
      const page = unwrap(
        await ctx.operator().GET("/admin/v1/accounts/{id}/webhook-endpoints", { params: { path: { id } } }),
      );
      ctx.out.list(page, listColumns);
    });

  webhooks
    .command("update")
    .description("muda a URL ou os tipos de evento de um endpoint, ou o liga ou desliga")
    .argument("<endpointId>", "o endpoint (we_…)")
    .option("--url <url>", "para onde os eventos são enviados por POST")
    .option("--events <list>", "tipos de evento separados por vírgula", list)
    .option("--enable", "volta a entregar a ele")
    .option("--disable", "para de entregar a ele")
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
    .description("exclui um endpoint de webhook")
    .argument("<endpointId>", "o endpoint (we_…)")
    .action(async (id: string) => {
      const res = await ctx.operator().DELETE("/admin/v1/webhook-endpoints/{id}", { params: { path: { id } } });
      if (!res.response.ok) unwrap(res);
      ctx.out.record({ id, deleted: true }, ["id", "deleted"]);
    });

  webhooks
    .command("rotate-secret")
    .description("emite um novo segredo de assinatura; o antigo continua assinando por 24 horas")
    .argument("<endpointId>", "o endpoint (we_…)")
    .action(async (id: string) => {
      const rotated = unwrap(
        await ctx.operator().POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id } } }),
      );
      ctx.out.record(rotated, [...fields, "secret"]);
    });
}
