/**
 * `admin listen --forward-to <url>`: polls the API key's events (`GET /api/v1/events`) and forwards
 * each new one to a local URL, signed like a real delivery (like `stripe listen`). With
 * `--account acc_…` it polls that account's test events through the operator API instead (operator
 * token, no API key). Either way: one line per event, a failed forward retried with backoff.
 */
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { Webhook } from "standardwebhooks";
import { CliError, unwrap } from "../clients.js";
import { type CliContext, int } from "../context.js";
import { maxWidth } from "../output.js";
import { eventTypeList, type EventType } from "./trigger.js";
import type { components } from "../../../../generated/api.js";

type Event = components["schemas"]["Event"];

interface ListenOptions {
  forwardTo: string;
  account?: string;
  events?: EventType[];
  secret?: string;
  interval: number;
  retries: number;
  stopAfter?: number;
}

/** The wait before retry n (1, 2, …) of a failed forward: 500 ms, 1 s, 2 s, … capped at 5 s. */
const retryDelayMs = (retry: number) => Math.min(500 * 2 ** (retry - 1), 5_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Whether a failed poll is worth another try at the next interval: the server unreachable (say,
 * restarting), a 429 or a 5xx. Anything else (a revoked key, a bad account id) ends the command.
 */
function isTransient(error: unknown): boolean {
  if (error instanceof CliError) return error.status === 429 || (error.status ?? 0) >= 500;
  return error instanceof TypeError && error.message === "fetch failed";
}

/** POSTs one event to `url` with Standard Webhooks headers; the HTTP status, or the error. */
async function forwardOnce(url: string, signer: Webhook, event: Event): Promise<{ ok: boolean; status: string }> {
  const body = JSON.stringify(event);
  const at = new Date();
  try {
    const res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(15_000),
      headers: {
        "content-type": "application/json",
        "webhook-id": event.id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": signer.sign(event.id, at, body),
      },
      body,
    });
    await res.body?.cancel();
    return { ok: res.ok, status: String(res.status) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { ok: false, status: cause?.code ?? (error as Error).message };
  }
}

/** Forwards with up to `retries` more attempts after a non-2xx answer or a network error. */
async function forward(url: string, signer: Webhook, event: Event, retries: number) {
  let attempt = 1;
  for (;;) {
    const result = await forwardOnce(url, signer, event);
    if (result.ok || attempt > retries) return { ...result, attempts: attempt };
    console.error(`${event.id}: ${result.status}, tentando de novo (tentativa ${attempt + 1} de ${retries + 1})`);
    await sleep(retryDelayMs(attempt));
    attempt++;
  }
}

/**
 * The events of the API key newer than the last poll, oldest first. The list is newest first and
 * paged; `createdFrom` (inclusive) = the newest time seen so far keeps the pages short, and the ids
 * already seen at that time are left out.
 */
function partnerSource(ctx: CliContext): () => Promise<Event[]> {
  const api = ctx.partner();
  let newest: string | undefined;
  let seenAtNewest = new Set<string>();
  const fetchNewer = async (): Promise<Event[]> => {
    const fresh: Event[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = unwrap(
        await api.GET("/api/v1/events", {
          params: {
            query: {
              limit: 100,
              ...(newest !== undefined ? { createdFrom: newest } : {}),
              ...(startingAfter !== undefined ? { startingAfter } : {}),
            },
          },
        }),
      );
      fresh.push(...page.data.filter((e) => !seenAtNewest.has(e.id)));
      const last = page.data.at(-1);
      if (!page.hasMore || !last) break;
      startingAfter = last.id;
    }
    for (const e of fresh) {
      if (newest === undefined || Date.parse(e.createdAt) > Date.parse(newest)) {
        newest = e.createdAt;
        seenAtNewest = new Set();
      }
    }
    for (const e of fresh) if (e.createdAt === newest) seenAtNewest.add(e.id);
    return fresh.reverse();
  };
  let started = false;
  return async () => {
    if (!started) {
      // From the moment it starts: everything already there is seen, not forwarded.
      const first = unwrap(await api.GET("/api/v1/events", { params: { query: { limit: 1 } } })).data[0];
      newest = first?.createdAt;
      if (newest !== undefined) await fetchNewer();
      started = true;
    }
    return fetchNewer();
  };
}

/** An account's new test events through the operator API, oldest first (the previous `listen`). */
function operatorSource(ctx: CliContext, accountId: string): () => Promise<Event[]> {
  const api = ctx.operator();
  let seen: Set<string> | undefined;
  return async () => {
    const page = unwrap(
      await api.GET("/admin/v1/accounts/{id}/events", {
        params: { path: { id: accountId }, query: { mode: "test", limit: 100 } },
      }),
    ).data;
    const first = seen === undefined;
    seen ??= new Set();
    const fresh = page.filter((e) => !seen?.has(e.id));
    for (const e of fresh) seen.add(e.id);
    return first ? [] : fresh.map((e) => e.payload as Event).reverse();
  };
}

export function registerListen(program: Command, ctx: CliContext): void {
  program
    .command("listen")
    .description("encaminha os novos eventos da chave de API a uma URL local, assinados como entregas reais")
    .requiredOption(
      "--forward-to <url>",
      "para onde enviar cada evento por POST, por exemplo http://localhost:4000/webhook",
    )
    .option("--account <accountId>", "os eventos de uma conta pela API de operador (token, não chave de API)")
    .option("--events <list>", "só estes tipos de evento, separados por vírgula (veja trigger --help)", eventTypeList)
    .option("--secret <whsec>", "segredo de assinatura (padrão: um novo, impresso no início)")
    .option("--interval <ms>", "a cada quanto tempo consultar, em milissegundos", int, 1000)
    .option(
      "--retries <n>",
      "novas tentativas de um encaminhamento que falhou, com espera (0,5 s, 1 s, 2 s, …)",
      int,
      3,
    )
    .option("--stop-after <n>", "sai depois de encaminhar n eventos", int)
    .action(async (o: ListenOptions) => {
      const poll = o.account === undefined ? partnerSource(ctx) : operatorSource(ctx, o.account);
      await poll();
      const secret = o.secret ?? `whsec_${randomBytes(24).toString("base64")}`;
      const signer = new Webhook(secret);
      const whose = o.account === undefined ? "da chave de API" : `de teste de ${o.account}`;
      console.error(`Encaminhando os novos eventos ${whose} para ${o.forwardTo}`);
      if (!o.secret) console.error(`Segredo de assinatura (webhook-signature): ${secret}`);
      let forwarded = 0;
      for (;;) {
        await sleep(o.interval);
        let fresh: Event[];
        try {
          fresh = await poll();
        } catch (error) {
          if (!isTransient(error)) throw error;
          console.error(`a consulta falhou (${(error as Error).message}), tentando de novo`);
          continue;
        }
        for (const event of fresh) {
          if (o.events && !o.events.includes(event.type)) continue;
          const { status, attempts } = await forward(o.forwardTo, signer, event, o.retries);
          const objectId = event.data.object.id;
          if (ctx.out.json) {
            const line = { id: event.id, type: event.type, createdAt: event.createdAt, objectId, status, attempts };
            console.log(JSON.stringify(line));
          } else {
            const after = attempts > 1 ? ` (tentativa ${attempts})` : "";
            const time = event.createdAt.slice(0, 19).replace("T", " ");
            const line = `${time}  ${event.type}  ${objectId}  → ${status}${after}`;
            console.log(line.length > maxWidth ? `${line.slice(0, maxWidth - 1)}…` : line);
          }
          forwarded++;
          if (o.stopAfter !== undefined && forwarded >= o.stopAfter) return;
        }
      }
    });
}
