/** `admin keys …`: an account's API keys (the secret is printed once, at creation). */
import { type Command, Option } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, int, list } from "../context.js";
import type { components } from "../../../../generated/admin-api.js";

type Permission = components["schemas"]["Permission"];
type Mode = components["schemas"]["Mode"];

const listColumns = ["id", "name", "mode", "prefix", "permissions", "revokedAt"];
const fields = [
  "id",
  "accountId",
  "name",
  "mode",
  "prefix",
  "permissions",
  "allowedIps",
  "dailyWithdrawLimitCents",
  "revokedAt",
  "createdAt",
];

/** Option parser: a daily limit in cents, or "none" for no limit (not null: commander drops it). */
const dailyLimit = (v: string): number | "none" => (v === "none" ? "none" : int(v));

interface KeyOptions {
  permissions?: Permission[];
  allowedIps?: string[];
  dailyLimit?: number | "none";
}

const keyBody = (o: KeyOptions) => ({
  ...(o.permissions ? { permissions: o.permissions } : {}),
  ...(o.allowedIps ? { allowedIps: o.allowedIps } : {}),
  ...(o.dailyLimit !== undefined ? { dailyWithdrawLimitCents: o.dailyLimit === "none" ? null : o.dailyLimit } : {}),
});

export function registerKeys(program: Command, ctx: CliContext): void {
  const keys = program.command("keys").description("chaves de API das contas de lojistas");

  keys
    .command("create")
    .description("cria uma chave de API; o segredo é impresso só esta vez")
    .argument("<accountId>", "a conta (acc_…)")
    .requiredOption("--name <name>", "um nome para reconhecer a chave")
    .addOption(
      new Option("--mode <mode>", "chave de teste ou de produção").choices(["test", "production"]).default("test"),
    )
    .option("--permissions <list>", "permissões separadas por vírgula (padrão: todas menos withdrawals:write)", list)
    .option("--allowed-ips <list>", "endereços ou faixas CIDR separados por vírgula (padrão: qualquer um)", list)
    .option("--daily-limit <cents>", "limite diário de saques em centavos, ou 'none' (sem limite)", dailyLimit)
    .action(async (accountId: string, o: KeyOptions & { name: string; mode: Mode }) => {
      const body = { name: o.name, mode: o.mode, ...keyBody(o) };
      const created = unwrap(
        await ctx.operator().POST("/admin/v1/accounts/{id}/api-keys", { params: { path: { id: accountId } }, body }),
      );
      ctx.out.record(created, [...fields, "secret"]);
      ctx.out.note("Guarde o segredo agora: ele não é mostrado de novo.");
    });

  keys
    .command("list")
    .description("lista as chaves de API de uma conta (sem os segredos)")
    .argument("<accountId>", "a conta (acc_…)")
    .action(async (id: string) => {
      const page = unwrap(await ctx.operator().GET("/admin/v1/accounts/{id}/api-keys", { params: { path: { id } } }));
      ctx.out.list(page, listColumns);
    });

  keys
    .command("update")
    .description(
      "muda as permissões, a lista de IPs permitidos ou o limite diário de uma chave (vale já na próxima requisição)",
    )
    .argument("<keyId>", "a chave (key_…)")
    .option("--permissions <list>", "permissões separadas por vírgula", list)
    .option("--allowed-ips <list>", "endereços ou faixas CIDR separados por vírgula; '' permite qualquer um", list)
    .option("--daily-limit <cents>", "limite diário de saques em centavos, ou 'none' (sem limite)", dailyLimit)
    .action(async (id: string, o: KeyOptions) => {
      const body = keyBody(o);
      ctx.out.record(
        unwrap(await ctx.operator().PATCH("/admin/v1/api-keys/{id}", { params: { path: { id } }, body })),
        fields,
      );
    });

  keys
    .command("revoke")
    .description("revoga uma chave de API na hora")
    .argument("<keyId>", "a chave (key_…)")
    .action(async (id: string) => {
      ctx.out.record(
        unwrap(await ctx.operator().POST("/admin/v1/api-keys/{id}/revoke", { params: { path: { id } } })),
        fields,
      );
    });
}
