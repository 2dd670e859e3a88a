/**
 * `npm run admin -- <command>`: the operator API from a terminal, against `PIX_ADMIN_URL`
 * (default http://127.0.0.1:3000) with `ADMIN_TOKEN`. Readable tables by default, `--json` for
 * scripts; any error exits non-zero with the API's message.
 */
import { randomBytes } from "node:crypto";
import { Command, Option } from "commander";
import { Webhook } from "standardwebhooks";
import createClient from "openapi-fetch";
import type { paths } from "../../../generated/admin-api.js";
import { loadCliConfig } from "../config.js";

type Row = Record<string, unknown>;

class CliError extends Error {}

function client(program: Command) {
  const opts = program.opts<{ url: string; token?: string }>();
  if (!opts.token) throw new CliError("ADMIN_TOKEN ausente: defina a variável ou use --token.");
  return createClient<paths>({
    baseUrl: opts.url.replace(/\/+$/, ""),
    headers: { authorization: `Bearer ${opts.token}` },
  });
}

/** Unwraps an openapi-fetch result: the data, or a CliError with the API's Portuguese message. */
function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const body = result.error as
      { code?: string; message?: string; errors?: { path: string; message: string }[] } | undefined;
    const fields = body?.errors?.map((e) => `  ${e.path}: ${e.message}`).join("\n");
    throw new CliError(
      `${result.response.status} ${body?.code ?? ""} ${body?.message ?? result.response.statusText}${fields ? `\n${fields}` : ""}`.trim(),
    );
  }
  return result.data as T;
}

const cell = (v: unknown): string =>
  v === null || v === undefined
    ? "-"
    : Array.isArray(v)
      ? v.join(",")
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);

/** A plain text table of the chosen columns. */
export function table(rows: Row[], columns: string[]): string {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [
    line(columns),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(columns.map((c) => cell(r[c])))),
  ].join("\n");
}

function print(program: Command, value: unknown, columns: string[]): void {
  if (program.opts<{ json?: boolean }>().json) {
    console.log(JSON.stringify(value, null, 2));
    return;
  }
  const rows = (Array.isArray(value) ? value : ((value as { data?: Row[] }).data ?? [value])) as Row[];
  console.log(table(rows, columns));
}

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new CliError(`não é um número inteiro: ${v}`);
  return n;
};
const list = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function buildProgram(): Command {
  const env = loadCliConfig();
  const program = new Command("admin")
    .description("Operator CLI of the Pix Charging Service")
    .option("--url <url>", "operator API base address (PIX_ADMIN_URL)", env.adminUrl)
    .option("--token <token>", "operator token (ADMIN_TOKEN)", env.adminToken)
    .option("--json", "print JSON instead of tables")
    .showHelpAfterError();

  const accountCols = ["id", "name", "ownerEmail", "verified", "releasePeriodDays", "createdAt"];
  const accounts = program.command("accounts").description("merchant accounts");
  accounts
    .command("create")
    .requiredOption("--name <name>")
    .requiredOption("--owner-email <email>")
    .option("--verified", "operates in production at once")
    .option("--release-period-days <days>", "days a sale stays pending", int)
    .option("--charge-fee-cents <cents>", "fixed fee per charge", int)
    .option("--charge-fee-bps <bps>", "proportional fee per charge", int)
    .option("--withdraw-fee-cents <cents>", "fee per withdrawal", int)
    .action(async (o) => {
      const plan = {
        chargeFeeCents: o.chargeFeeCents,
        chargeFeeBps: o.chargeFeeBps,
        withdrawFeeCents: o.withdrawFeeCents,
      };
      const body = {
        name: o.name,
        ownerEmail: o.ownerEmail,
        ...(o.verified ? { verified: true } : {}),
        ...(o.releasePeriodDays !== undefined ? { releasePeriodDays: o.releasePeriodDays } : {}),
        ...(Object.values(plan).some((v) => v !== undefined) ? { plan: JSON.parse(JSON.stringify(plan)) } : {}),
      };
      print(program, unwrap(await client(program).POST("/admin/v1/accounts", { body })), accountCols);
    });
  accounts.command("list").action(async () => {
    print(
      program,
      unwrap(await client(program).GET("/admin/v1/accounts", { params: { query: { limit: 100 } } })),
      accountCols,
    );
  });
  accounts.command("get <id>").action(async (id: string) => {
    print(
      program,
      unwrap(await client(program).GET("/admin/v1/accounts/{id}", { params: { path: { id } } })),
      accountCols,
    );
  });
  accounts.command("verify <id>").action(async (id: string) => {
    const body = { verified: true };
    print(
      program,
      unwrap(await client(program).PATCH("/admin/v1/accounts/{id}", { params: { path: { id } }, body })),
      accountCols,
    );
  });

  const keyCols = ["id", "name", "mode", "prefix", "permissions", "allowedIps", "dailyWithdrawLimitCents", "revokedAt"];
  const keys = program.command("keys").description("API keys");
  keys
    .command("create <accountId>")
    .requiredOption("--name <name>")
    .addOption(new Option("--mode <mode>").choices(["test", "production"]).default("test"))
    .option("--permissions <list>", "comma-separated permissions", list)
    .option("--allowed-ips <list>", "comma-separated addresses or CIDR ranges", list)
    .option("--daily-limit <cents>", "daily withdrawal limit in cents", int)
    .action(async (accountId: string, o) => {
      const body = {
        name: o.name,
        mode: o.mode,
        ...(o.permissions ? { permissions: o.permissions } : {}),
        ...(o.allowedIps ? { allowedIps: o.allowedIps } : {}),
        ...(o.dailyLimit !== undefined ? { dailyWithdrawLimitCents: o.dailyLimit } : {}),
      };
      const created = unwrap(
        await client(program).POST("/admin/v1/accounts/{id}/api-keys", { params: { path: { id: accountId } }, body }),
      );
      print(program, created, [...keyCols, "secret"]);
    });
  keys.command("list <accountId>").action(async (id: string) => {
    print(
      program,
      unwrap(await client(program).GET("/admin/v1/accounts/{id}/api-keys", { params: { path: { id } } })),
      keyCols,
    );
  });
  keys
    .command("update <keyId>")
    .option("--permissions <list>", "comma-separated permissions", list)
    .option("--allowed-ips <list>", "comma-separated; empty string clears", (v: string) => list(v))
    .option("--daily-limit <cents>", "cents, or 'none'", (v: string) => (v === "none" ? null : int(v)))
    .action(async (id: string, o) => {
      const body = {
        ...(o.permissions ? { permissions: o.permissions } : {}),
        ...(o.allowedIps ? { allowedIps: o.allowedIps } : {}),
        ...(o.dailyLimit !== undefined ? { dailyWithdrawLimitCents: o.dailyLimit } : {}),
      };
      print(
        program,
        unwrap(await client(program).PATCH("/admin/v1/api-keys/{id}", { params: { path: { id } }, body })),
        keyCols,
      );
    });
  keys.command("revoke <keyId>").action(async (id: string) => {
    print(
      program,
      unwrap(await client(program).POST("/admin/v1/api-keys/{id}/revoke", { params: { path: { id } } })),
      keyCols,
    );
  });

  const hookCols = ["id", "mode", "url", "events", "enabled"];
  const webhooks = program.command("webhooks").description("webhook endpoints");
  webhooks
    .command("create <accountId>")
    .requiredOption("--url <url>")
    .addOption(new Option("--mode <mode>").choices(["test", "production"]).default("test"))
    .requiredOption("--events <list>", "comma-separated event kinds", list)
    .action(async (accountId: string, o) => {
      const body = { url: o.url, mode: o.mode, events: o.events };
      const created = unwrap(
        await client(program).POST("/admin/v1/accounts/{id}/webhook-endpoints", {
          params: { path: { id: accountId } },
          body,
        }),
      );
      print(program, created, [...hookCols, "secret"]);
    });
  webhooks.command("list <accountId>").action(async (id: string) => {
    print(
      program,
      unwrap(await client(program).GET("/admin/v1/accounts/{id}/webhook-endpoints", { params: { path: { id } } })),
      hookCols,
    );
  });
  webhooks.command("delete <endpointId>").action(async (id: string) => {
    const res = await client(program).DELETE("/admin/v1/webhook-endpoints/{id}", { params: { path: { id } } });
    if (!res.response.ok) unwrap(res);
    print(program, { id, deleted: true }, ["id", "deleted"]);
  });
  webhooks.command("rotate-secret <endpointId>").action(async (id: string) => {
    const rotated = unwrap(
      await client(program).POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id } } }),
    );
    print(program, rotated, ["id", "secret"]);
  });
  webhooks.command("deliveries <endpointId>").action(async (id: string) => {
    const page = unwrap(
      await client(program).GET("/admin/v1/webhook-endpoints/{id}/deliveries", {
        params: { path: { id }, query: { limit: 100 } },
      }),
    );
    print(program, page, ["id", "eventId", "status", "nextAttemptAt", "createdAt"]);
  });
  webhooks.command("replay <eventId>").action(async (id: string) => {
    const result = unwrap(await client(program).POST("/admin/v1/events/{id}/replay", { params: { path: { id } } }));
    print(program, result.deliveries, ["id", "eventId", "endpointId", "status"]);
  });

  program
    .command("listen <accountId>")
    .description("forward an account's test-mode events to a local URL, signed like real deliveries")
    .requiredOption("--forward-to <url>", "where to POST each event, e.g. http://localhost:4000/webhook")
    .option("--events <list>", "only these event kinds", list)
    .option("--secret <whsec>", "signing secret (default: a new one, printed at start)")
    .option("--interval <ms>", "how often to poll", int, 1000)
    .option("--stop-after <n>", "exit after forwarding n events", int)
    .action(async (accountId: string, o) => {
      const api = client(program);
      const secret: string = o.secret ?? `whsec_${randomBytes(24).toString("base64")}`;
      const signer = new Webhook(secret);
      const seen = new Set<string>();
      const poll = async () =>
        unwrap(
          await api.GET("/admin/v1/accounts/{id}/events", {
            params: { path: { id: accountId }, query: { mode: "test", limit: 100 } },
          }),
        ).data;
      for (const e of await poll()) seen.add(e.id);
      console.error(`Encaminhando eventos de teste de ${accountId} para ${o.forwardTo}`);
      console.error(`Segredo de assinatura (webhook-signature): ${secret}`);
      let forwarded = 0;
      for (;;) {
        const fresh = (await poll()).filter((e) => !seen.has(e.id)).reverse();
        for (const event of fresh) {
          seen.add(event.id);
          if (o.events && !o.events.includes(event.type)) continue;
          const body = JSON.stringify(event.payload);
          const at = new Date();
          let status = "erro";
          try {
            const res = await fetch(o.forwardTo, {
              method: "POST",
              redirect: "manual",
              headers: {
                "content-type": "application/json",
                "webhook-id": event.id,
                "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
                "webhook-signature": signer.sign(event.id, at, body),
              },
              body,
            });
            status = String(res.status);
          } catch (error) {
            status = `erro: ${(error as Error).message}`;
          }
          console.log(`${event.createdAt}  ${event.type}  ${event.id}  → ${status}`);
          forwarded++;
          if (o.stopAfter !== undefined && forwarded >= o.stopAfter) return;
        }
        await new Promise((r) => setTimeout(r, o.interval));
      }
    });

  const txnCols = ["id", "status", "amountCents", "livemode", "paidAt"];
  const simulate = program.command("simulate").description("settlement simulator");
  simulate.command("pay <transactionId>").action(async (id: string) => {
    print(
      program,
      unwrap(await client(program).POST("/admin/v1/simulator/transactions/{id}/pay", { params: { path: { id } } })),
      txnCols,
    );
  });
  simulate
    .command("settle <withdrawalId>")
    .addOption(new Option("--outcome <outcome>").choices(["PAID", "PARTIALLY_PAID", "FAILED"]).makeOptionMandatory())
    .option("--paid <cents>", "with PARTIALLY_PAID: cents paid", int)
    .action(async (id: string, o) => {
      const body = { outcome: o.outcome, ...(o.paid !== undefined ? { paidAmountCents: o.paid } : {}) };
      const w = unwrap(
        await client(program).POST("/admin/v1/simulator/withdrawals/{id}/settle", { params: { path: { id } }, body }),
      );
      print(program, w, ["id", "status", "amountCents", "paidAmountCents", "returnedAmountCents"]);
    });
  simulate
    .command("dispute <transactionId>")
    .option("--amount <cents>", "contested amount (default: all)", int)
    .action(async (id: string, o) => {
      const body = o.amount !== undefined ? { amountCents: o.amount } : {};
      const t = unwrap(
        await client(program).POST("/admin/v1/simulator/transactions/{id}/disputes", {
          params: { path: { id } },
          body,
        }),
      );
      print(program, t.dispute ?? t, ["id", "status", "amountCents", "createdAt"]);
    });
  simulate
    .command("close-dispute <disputeId>")
    .addOption(new Option("--outcome <outcome>").choices(["WON", "LOST"]).makeOptionMandatory())
    .action(async (id: string, o) => {
      const t = unwrap(
        await client(program).POST("/admin/v1/simulator/disputes/{id}/close", {
          params: { path: { id } },
          body: { outcome: o.outcome },
        }),
      );
      print(program, t.dispute ?? t, ["id", "status", "amountCents"]);
    });

  const clock = program.command("clock").description("the manual clock (PIX_MANUAL_CLOCK=1)");
  clock.command("get").action(async () => {
    print(program, unwrap(await client(program).GET("/admin/v1/clock")), ["now"]);
  });
  clock.command("advance <seconds>").action(async (seconds: string) => {
    print(program, unwrap(await client(program).POST("/admin/v1/clock/advance", { body: { seconds: int(seconds) } })), [
      "now",
    ]);
  });
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`erro: ${error.message}`);
      return 1;
    }
    const code = (error as { exitCode?: number; code?: string }).exitCode;
    if (code !== undefined) return code === 0 ? 0 : code;
    console.error(`erro: ${(error as Error).message}`);
    return 1;
  }
}
