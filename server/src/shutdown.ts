import type { Logger } from "pino";

/**
 * Graceful shutdown on SIGTERM/SIGINT: `stop` finishes what is in flight; the process exits 0 when
 * it resolves, 1 when it fails or outlasts `timeoutMs`. A second signal exits at once (1).
 */
export function onShutdownSignals(options: {
  logger: Logger;
  timeoutMs: number;
  stop: () => Promise<void>;
  signals?: NodeJS.Signals[];
}): void {
  const { logger, timeoutMs, stop } = options;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "segundo sinal: encerrando imediatamente");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, timeoutMs }, "encerrando: terminando requisições e entregas em andamento");
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs }, "encerramento excedeu o prazo (SHUTDOWN_TIMEOUT_MS): saindo");
      process.exit(1);
    }, timeoutMs);
    stop().then(
      () => {
        clearTimeout(deadline);
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
