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
  const keys = program.command("keys").description("API keys of merchant accounts");

  keys
    .command("create")
    .description("create an API key; its secret is printed this once")
    .argument("<accountId>", "the account (acc_…)")
    .requiredOption("--name <name>", "a name to recognise the key by")
    .addOption(new Option("--mode <mode>", "test or production key").choices(["test", "production"]).default("test"))
    .option("--permissions <list>", "comma-separated permissions (default: all but withdrawals:write)", list)
    .option("--allowed-ips <list>", "comma-separated addresses or CIDR ranges (default: any)", list)
    .option("--daily-limit <cents>", "daily withdrawal limit in cents, or 'none'", dailyLimit)
    .action(async (accountId: string, o: KeyOptions & { name: string; mode: Mode }) => {
      const body = { name: o.name, mode: o.mode, ...keyBody(o) };
      const created = unwrap(
        await ctx.operator().POST("/admin/v1/accounts/{id}/api-keys", { params: { path: { id: accountId } }, body }),
      );
      ctx.out.record(created, [...fields, "secret"]);
      ctx.out.note("Store the secret now: it is not shown again.");
    });

  keys
    .command("list")
    .description("list an account's API keys (without secrets)")
    .argument("<accountId>", "the account (acc_…)")
    .action(async (id: string) => {
      const page = unwrap(await ctx.operator().GET("/admin/v1/accounts/{id}/api-keys", { params: { path: { id } } }));
      ctx.out.list(page, listColumns);
    });

  keys
    .command("update")
    .description("change a key's permissions, IP allow-list or daily limit (effective on the next request)")
    .argument("<keyId>", "the key (key_…)")
    .option("--permissions <list>", "comma-separated permissions", list)
    .option("--allowed-ips <list>", "comma-separated addresses or CIDR ranges; '' allows any", list)
    .option("--daily-limit <cents>", "daily withdrawal limit in cents, or 'none'", dailyLimit)
    .action(async (id: string, o: KeyOptions) => {
      const body = keyBody(o);
      ctx.out.record(
        unwrap(await ctx.operator().PATCH("/admin/v1/api-keys/{id}", { params: { path: { id } }, body })),
        fields,
      );
    });

  keys
    .command("revoke")
    .description("revoke an API key at once")
    .argument("<keyId>", "the key (key_…)")
    .action(async (id: string) => {
      ctx.out.record(
        unwrap(await ctx.operator().POST("/admin/v1/api-keys/{id}/revoke", { params: { path: { id } } })),
        fields,
      );
    });
}
