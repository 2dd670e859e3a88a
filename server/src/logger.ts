import { type Logger, pino } from "pino";

/** Log text waiting for a reader beyond which new lines are dropped (counted, and said once room is back). */
const maxWaitingBytes = 8 * 1024 * 1024;

/**
 * Where log lines go: standard output, written so that no log line can hold the process up. The
 * lines of one turn of the event loop go out as one write (a write per line was a seventh of the
 * server's time on a PostgreSQL create under load). Through `process.stdout`, which never blocks
 * on a pipe (Node makes it non-blocking and queues what the reader has not taken yet): the queue is
 * bounded, lines beyond it are dropped; a closed stdout (EPIPE) ends logging; at exit, what is left
 * is handed over without waiting. pino's own asynchronous destination flushed synchronously at
 * exit, retrying forever while the pipe was full: a server whose reader had stopped reading never
 * exited, whatever it was sent (issue 24).
 */
class StdoutLines {
  private waiting: string[] = [];
  private waitingBytes = 0;
  private scheduled = false;
  private closed = false;
  /** Lines dropped since the last one written; `onResume` hears their number when lines flow again. */
  private dropped = 0;
  onResume: (dropped: number) => void = () => undefined;

  constructor(
    private readonly out: NodeJS.WritableStream & { writableLength: number },
    private readonly render: (line: string) => string,
  ) {
    out.on("error", () => {
      // EPIPE and the like: nobody will read again.
      this.closed = true;
      this.waiting = [];
    });
    process.on("exit", () => this.flush());
  }

  write(line: string): void {
    if (this.closed) return;
    if (this.out.writableLength + this.waitingBytes + line.length > maxWaitingBytes) {
      this.dropped++;
      return;
    }
    if (this.dropped > 0) {
      const dropped = this.dropped;
      this.dropped = 0;
      this.onResume(dropped);
    }
    this.waiting.push(this.render(line));
    this.waitingBytes += line.length;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed || this.waiting.length === 0) return;
    const chunk = this.waiting.join("");
    this.waiting = [];
    this.waitingBytes = 0;
    this.out.write(chunk);
  }
}

/**
 * An error as a log line holds it: pino's own serialiser (type, message, stack, the causes'
 * messages, every enumerable field) without the fields a database error fills with the row's
 * values: PostgreSQL's `detail` ("Failing row contains (…)", "Key (email)=(…) already exists")
 * and `where`, which could carry a sealed secret, a password's hash or a person's address. Its
 * code, table and constraint stay.
 */
export function loggedError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (serialized === null || typeof serialized !== "object") return serialized;
  const { detail: _detail, where: _where, ...kept } = serialized as Record<string, unknown>;
  return kept;
}

/**
 * The process logger: readable lines (pino-pretty) on a terminal outside production, one JSON
 * object a line otherwise (`LOG_FORMAT` decides when set); written by `StdoutLines`.
 */
export async function createLogger(options: {
  level: string;
  format: "json" | "pretty" | undefined;
  production: boolean;
}): Promise<Logger> {
  const pretty = options.format ? options.format === "pretty" : !options.production && process.stdout.isTTY === true;
  let render = (line: string) => line;
  if (pretty) {
    const { prettyFactory } = await import("pino-pretty");
    render = prettyFactory({
      colorize: process.stdout.isTTY === true,
      translateTime: "SYS:HH:MM:ss",
      // A request is one line: "GET /api/v1/balance 200 (4 ms, <request id>)".
      messageFormat: "{msg}{if responseTime} ({responseTime} ms, {req.id}){end}",
      ignore: "pid,hostname,req,res,responseTime",
    });
  }
  const destination = new StdoutLines(process.stdout, render);
  const logger = pino({ level: options.level, serializers: { err: loggedError } }, destination);
  destination.onResume = (dropped) =>
    logger.warn({ dropped }, "linhas de log descartadas: a saída padrão não estava sendo lida");
  return logger;
}
