import type { Logger } from "pino";

/** A background job of the server process; `stop()` waits for a run in progress. */
export interface Job {
  stop(): Promise<void>;
}

/**
 * Runs `run` at once and then every `intervalMs`, in the background of the server process (the
 * timer does not keep the process alive). A failed run (the database unreachable) is logged as
 * `failed` says and tried again on the next tick: it never stops the process. Runs never overlap: a
 * tick that finds a run in progress is skipped. `stop()` waits for a run in progress, so the store
 * can be closed after it.
 */
export function every(intervalMs: number, run: () => Promise<void>, logger: Logger, failed: string): Job {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = run()
      .catch((error: unknown) => logger.warn({ err: error }, `${failed}; trying again on the next tick`))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
