/**
 * `admin listen <accountId> --forward-to <url>`: polls an account's test events through the
 * operator API and forwards each new one to a local URL, signed like a real delivery.
 */
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { Webhook } from "standardwebhooks";
import { unwrap } from "../clients.js";
import { type CliContext, int, list } from "../context.js";
import type { components } from "../../../../generated/admin-api.js";

type EventRecord = components["schemas"]["EventRecord"];

interface ListenOptions {
  forwardTo: string;
  events?: string[];
  secret?: string;
  interval: number;
  stopAfter?: number;
}

/** POSTs one event to `url` with Standard Webhooks headers; the HTTP status, or the error. */
async function forward(url: string, signer: Webhook, event: EventRecord): Promise<string> {
  const body = JSON.stringify(event.payload);
  const at = new Date();
  try {
    const res = await fetch(url, {
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
    return String(res.status);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

export function registerListen(program: Command, ctx: CliContext): void {
  program
    .command("listen")
    .description("forward an account's new test-mode events to a local URL, signed like real deliveries")
    .argument("<accountId>", "the account (acc_…)")
    .requiredOption("--forward-to <url>", "where to POST each event, e.g. http://localhost:4000/webhook")
    .option("--events <list>", "only these comma-separated event kinds", list)
    .option("--secret <whsec>", "signing secret (default: a new one, printed at start)")
    .option("--interval <ms>", "how often to poll, in milliseconds", int, 1000)
    .option("--stop-after <n>", "exit after forwarding n events", int)
    .action(async (accountId: string, o: ListenOptions) => {
      const api = ctx.operator();
      const secret = o.secret ?? `whsec_${randomBytes(24).toString("base64")}`;
      const signer = new Webhook(secret);
      const seen = new Set<string>();
      const poll = async () =>
        unwrap(
          await api.GET("/admin/v1/accounts/{id}/events", {
            params: { path: { id: accountId }, query: { mode: "test", limit: 100 } },
          }),
        ).data;
      for (const e of await poll()) seen.add(e.id);
      console.error(`Forwarding test events of ${accountId} to ${o.forwardTo}`);
      if (!o.secret) console.error(`Signing secret (webhook-signature): ${secret}`);
      let forwarded = 0;
      for (;;) {
        const fresh = (await poll()).filter((e) => !seen.has(e.id)).reverse();
        for (const event of fresh) {
          seen.add(event.id);
          if (o.events && !o.events.includes(event.type)) continue;
          const status = await forward(o.forwardTo, signer, event);
          if (ctx.out.json) {
            console.log(JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, status }));
          } else console.log(`${event.createdAt}  ${event.type}  ${event.id}  → ${status}`);
          forwarded++;
          if (o.stopAfter !== undefined && forwarded >= o.stopAfter) return;
        }
        await new Promise((r) => setTimeout(r, o.interval));
      }
    });
}
