/**
 * What main.ts starts for the platform's bank: the `BankAccess` the domain calls, the webhook
 * listener, and the webhook's registration at the bank (`PUT /webhook/{chave}`), made at start-up
 * and again whenever the connection changes (a new version, seen by `current()`).
 */
import type { Logger } from "pino";
import type { BankCredentials, BankHealthPatch } from "../domain/bank/index.js";
import { bankAccess, type ManagedBankAccess } from "./access.js";
import type { BreakerOptions } from "./breaker.js";
import type { BankClient } from "./client.js";
import { recurrenceBankOf } from "../domain/ports/recurrence-bank.js";
import type { ListenerBank, WebhookListener } from "./listener.js";

export interface BankWiringOptions {
  /** `loadBankCredentials` bound to the domain's deps. */
  load: () => Promise<BankCredentials | null>;
  /** `recordBankHealth` bound to the domain's deps. */
  recordHealth?: (patch: BankHealthPatch) => Promise<void>;
  /** The domain's `confirmReceived` (a callback's ids are hints; it reads each back). */
  onReceived: (endToEndIds: string[]) => Promise<unknown>;
  /** Pix Automático's callbacks (`/rec`, `/cobr`): the domain's `bankRecurrences` confirms each. */
  onRecurrences?: (recIds: string[]) => Promise<unknown>;
  onCycleCharges?: (txids: string[]) => Promise<unknown>;
  /** Efí's notices of sent Pix (their `idEnvio`s): the domain's `withdrawalPayouts` reads each back. */
  onPayoutsSettled?: (transferIds: string[]) => Promise<unknown>;
  /**
   * The platform's account number (PIX_BANK_ACCOUNT), which a cycle charge names: with it the
   * adapter speaks Pix Automático (server/src/bank/recurrences.ts); without it recurrences stay off the bank.
   */
  account?: string | undefined;
  logger: Pick<Logger, "info" | "warn">;
  /** The listener's port, address and own server certificate; absent: no listener here. */
  listener?: { port: number; host: string; certificate: { cert: string; key: string } } | undefined;
  /** The bounded wait of one call to the bank. */
  timeoutMs?: number | undefined;
  /** How long a create waits for the bank before answering PENDING. */
  waitMs?: number | undefined;
  recheckMs?: number | undefined;
  /** The first pause before a failed webhook registration is tried again (doubling to 5 min; default 5 000 ms). */
  registerRetryMs?: number | undefined;
  /** The circuit breaker's settings (bank/breaker.ts; its defaults when absent). */
  breaker?: BreakerOptions | undefined;
}

export interface BankWiring {
  /** `DomainDeps.bank`. */
  access: ManagedBankAccess;
  /**
   * Loads the connection, registers the webhook and binds the listener (once the domain that
   * `onReceived` calls exists). Never throws: a bank that does not answer (or a listener's port
   * another process holds) is logged and recorded, and the listener's bind and the registration are
   * tried again after 5 s, doubling to 5 min, until they succeed or the connection changes.
   */
  start(): Promise<void>;
  /** The listener's bound port, once started (a connection with a bank CA exists). */
  listenerPort(): number | null;
  close(): Promise<void>;
}

const listenerBank = (credentials: BankCredentials): ListenerBank => ({
  ca: credentials.bankCaPem,
  dialect: credentials.dialect,
  path: credentials.webhookUrl === null ? undefined : new URL(credentials.webhookUrl).pathname,
});

export function bankWiring(options: BankWiringOptions): BankWiring {
  const { logger } = options;
  let listener: WebhookListener | null = null;
  let listenerStarting: Promise<void> = Promise.resolve();
  // A registration the bank did not take is tried again with a growing pause, for as long as the
  // connection it was made for is the current one (a bank down at start-up would otherwise leave
  // the webhook unregistered, and every payment to the reconciler, until the next restart).
  let retry: { timer: NodeJS.Timeout } | null = null;
  let closed = false;
  /** Counts the changes of the connection: a retry made for an older one is dropped. */
  let changes = 0;
  const firstRetryMs = options.registerRetryMs ?? 5_000;
  const cancelRetry = () => {
    if (retry) clearTimeout(retry.timer);
    retry = null;
  };
  const record = (patch: BankHealthPatch) =>
    options.recordHealth?.(patch).catch((error: unknown) => logger.warn({ err: error }, "bank: health not recorded"));

  /** `follow` again after a growing pause, unless closed (a newer connection drops it). */
  function retryLater(
    bank: BankClient | null,
    credentials: BankCredentials,
    change: number,
    pauseMs: number,
    error: unknown,
    what: string,
  ): void {
    if (closed) return;
    const next = Math.min(Math.max(firstRetryMs, pauseMs * 2), 300_000);
    logger.warn({ err: error, retryInMs: next }, what);
    const timer = setTimeout(() => {
      if (retry?.timer !== timer) return;
      retry = null;
      listenerStarting = listenerStarting
        .then(() => follow(bank, credentials, change, next))
        .catch((e: unknown) => logger.warn({ err: e }, "bank: webhook not registered"));
    }, next);
    timer.unref();
    retry = { timer };
  }

  /** The webhook at the bank and the listener follow the connection. */
  async function follow(
    bank: BankClient | null,
    credentials: BankCredentials | null,
    change: number,
    pauseMs = 0,
  ): Promise<void> {
    if (change !== changes) return;
    cancelRetry();
    if (credentials && options.listener) {
      const { port, host, certificate } = options.listener;
      if (listener) listener.update(listenerBank(credentials));
      else {
        try {
          // The listener (its callback schemas, Ajv) is imported with the first connection.
          const { startWebhookListener } = await import("./listener.js");
          listener = await startWebhookListener({
            port,
            host,
            serverCertificate: certificate,
            bank: listenerBank(credentials),
            onReceived: async (ids) => {
              await options.onReceived(ids);
            },
            ...(options.onRecurrences && options.onCycleCharges
              ? {
                  onRecurrences: async (ids: string[]) => void (await options.onRecurrences?.(ids)),
                  onCycleCharges: async (ids: string[]) => void (await options.onCycleCharges?.(ids)),
                }
              : {}),
            ...(options.onPayoutsSettled
              ? { onPayoutsSettled: async (ids: string[]) => void (await options.onPayoutsSettled?.(ids)) }
              : {}),
            onError: (error) => logger.warn({ err: error }, "bank: callback not confirmed (the reconciler will)"),
          });
          logger.info({ port: listener.port }, "bank: webhook listener started");
        } catch (error) {
          // A port another process holds for now (an outgoing connection's, a restart's old
          // process) is tried again with the registration's pauses: without the listener every
          // callback is lost, and the payments wait for the reconciler until the next restart.
          const message = error instanceof Error ? error.message : String(error);
          await record({ lastError: { at: new Date().toISOString(), message: `ouvinte do webhook: ${message}` } });
          retryLater(
            bank,
            credentials,
            change,
            pauseMs,
            error,
            "bank: webhook listener not started (tried again later)",
          );
          return;
        }
      }
    }
    if (!bank || !credentials?.webhookUrl) return;
    try {
      await bank.registerWebhook(credentials.webhookUrl);
      // Pix Automático's webhooks at the same URL (`/rec`, `/cobr` after it), when the adapter speaks it.
      await recurrenceBankOf(bank)?.registerWebhooks(credentials.webhookUrl);
      const at = new Date().toISOString();
      await record({
        webhookRegisteredAt: at,
        lastSuccessAt: at,
        tokenExpiresAt: bank.tokenExpiresAt()?.toISOString() ?? null,
      });
      logger.info({ version: credentials.version }, "bank: webhook registered");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await record({ lastError: { at: new Date().toISOString(), message: `registro do webhook: ${message}` } });
      retryLater(bank, credentials, change, pauseMs, error, "bank: webhook not registered (tried again later)");
    }
  }

  // The adapter's modules load with the first connection; PIX_BANK_ACCOUNT, when set, is read now.
  const account =
    options.account === undefined
      ? Promise.resolve(null)
      : import("./recurrences.js").then(({ parseBankAccount }) => {
          const parsed = parseBankAccount(options.account as string);
          if (typeof parsed === "string") logger.warn({ reason: parsed }, "bank: PIX_BANK_ACCOUNT ignored");
          return typeof parsed === "string" ? null : parsed;
        });
  // Awaited by `build`; a failure is that build's, not an unhandled rejection meanwhile.
  account.catch(() => undefined);
  const access = bankAccess({
    load: options.load,
    build: async (credentials, clientOptions) => {
      const [{ pixBankFrom }, { withRecurrences }] = await Promise.all([
        import("./client.js"),
        import("./recurrences.js"),
      ]);
      return withRecurrences(pixBankFrom(credentials, clientOptions), await account);
    },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
    ...(options.recheckMs === undefined ? {} : { recheckMs: options.recheckMs }),
    ...(options.breaker === undefined ? {} : { breaker: options.breaker }),
    onLoadError: (error) => logger.warn({ err: error }, "bank: connection not re-read (the client held stays)"),
    onChange: ({ bank, credentials }) => {
      const change = ++changes;
      listenerStarting = listenerStarting
        .then(() => follow(bank, credentials, change))
        .catch((error: unknown) => logger.warn({ err: error }, "bank: webhook listener not started"));
    },
  });
  return {
    access,
    async start() {
      await access.refresh().catch((error: unknown) => logger.warn({ err: error }, "bank: connection not loaded"));
      await listenerStarting;
    },
    listenerPort: () => listener?.port ?? null,
    async close() {
      closed = true;
      cancelRetry();
      await listenerStarting;
      cancelRetry();
      await Promise.all([access.close(), listener?.close()]);
    },
  };
}
