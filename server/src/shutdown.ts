import type { Logger } from "pino";

/**
 * The same signal again within this many milliseconds is the same request, not a second one: a
 * terminal's Ctrl+C reaches the whole process group, and `npm start` (npm, then the server it
 * execs) relays it to the server too, a fraction of a millisecond later.
 */
const echoMs = 250;

/** Tells the first shutdown signal, a second one (exit at once) and an echo of the first apart. */
export function signalCounter(): (signal: NodeJS.Signals) => "first" | "second" | "echo" {
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  return (signal) => {
    const at = performance.now();
    if (!first) {
      first = { signal, at };
      return "first";
    }
    return signal === first.signal && at - first.at < echoMs ? "echo" : "second";
  };
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: `stop` finishes what is in flight; the process exits 0 when
 * it resolves, 1 when it fails or outlasts `timeoutMs`. The deadline is armed before anything else
 * is done (a log line, `stop`), and a second signal exits at once (1). Log lines never wait for
 * their reader (logger.ts), so neither a closed nor a full stdout holds the exit up.
 */
export function onShutdownSignals(options: {
  logger: Logger;
  timeoutMs: number;
  stop: () => Promise<void>;
  signals?: NodeJS.Signals[];
}): void {
  const { logger, timeoutMs, stop } = options;
  const count = signalCounter();
  const onSignal = (signal: NodeJS.Signals) => {
    const which = count(signal);
    if (which === "echo") return;
    if (which === "second") {
      process.exitCode = 1;
      logger.warn({ signal }, "segundo sinal: encerrando imediatamente");
      process.exit(1);
    }
    setTimeout(() => {
      logger.error({ timeoutMs }, "encerramento excedeu o prazo (SHUTDOWN_TIMEOUT_MS): saindo");
      process.exit(1);
    }, timeoutMs);
    logger.info({ signal, timeoutMs }, "encerrando: terminando requisições e entregas em andamento");
    Promise.resolve()
      .then(stop)
      .then(
        () => {
          logger.info("encerrado");
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, "falha ao encerrar");
          process.exit(1);
        },
      );
  };
  for (const signal of options.signals ?? ["SIGTERM", "SIGINT"]) process.on(signal, onSignal);
}
