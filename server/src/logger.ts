import { type Logger, pino } from "pino";

/**
 * The process logger: readable lines (pino-pretty) on a terminal outside production, one JSON
 * object a line otherwise (`LOG_FORMAT` decides when set).
 */
export async function createLogger(options: {
  level: string;
  format: "json" | "pretty" | undefined;
  production: boolean;
}): Promise<Logger> {
  const pretty = options.format ? options.format === "pretty" : !options.production && process.stdout.isTTY === true;
  // Written asynchronously: a line is handed to the kernel by a write of its own only when no
  // write is under way, otherwise with the lines that queued behind it. A synchronous write per
  // line was a seventh of the server's time on a PostgreSQL create under load. Lines still queued
  // are written out synchronously when the process exits (pino registers that); only a SIGKILL
  // can lose the last few.
  if (!pretty) return pino({ level: options.level }, pino.destination({ dest: 1, sync: false }));
  const { default: prettyStream } = await import("pino-pretty");
  return pino(
    { level: options.level },
    prettyStream({
      colorize: process.stdout.isTTY === true,
      sync: true,
      translateTime: "SYS:HH:MM:ss",
      // A request is one line: "GET /api/v1/balance 200 (4 ms, <request id>)".
      messageFormat: "{msg}{if responseTime} ({responseTime} ms, {req.id}){end}",
      ignore: "pid,hostname,req,res,responseTime",
    }),
  );
}
