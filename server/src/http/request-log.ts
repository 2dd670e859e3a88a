import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";

/**
 * Query parameters whose value is kept out of the log wherever they appear: a secret (`?token=` of
 * the e-mails' links, an API key a client put in the address: `api_key`, `apiKey`, `key`; a code,
 * a password) or a person's data (`document`, a CPF or CNPJ; an e-mail address).
 */
const secretParameter = /token|secret|passw|senha|key|auth|cookie|code|otp|document|cpf|cnpj|e-?mail/i;

/** What a redacted query value is logged as. */
const redactedValue = "[redacted]";

/** Whether every query value of `path` is kept out of the log: the web app's pages (links from e-mails). */
const panelPath = (path: string) => path === "/painel" || path.startsWith("/painel/");

const decodedName = (name: string) => {
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
};

/**
 * The URL as the log shows it: the path, and the query with the value of every secret-named
 * parameter (`token`, `secret`, `password`, …) replaced, and on `/painel` pages every value
 * (issue 33 §7: the e-mails' links carry their one-time token in the address). Names stay, so a
 * line still says what was asked.
 */
function loggedUrl(url: string): string {
  const start = url.indexOf("?");
  if (start < 0) return url;
  const path = url.slice(0, start);
  const everyValue = panelPath(path);
  const query = url
    .slice(start + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      // A bare value (`?Zk3m…`) on a page is redacted too; elsewhere it is a name alone.
      if (equals < 0) return everyValue && pair !== "" ? redactedValue : pair;
      const name = pair.slice(0, equals);
      return everyValue || secretParameter.test(decodedName(name)) ? `${name}=${redactedValue}` : pair;
    })
    .join("&");
  return `${path}?${query}`;
}

/**
 * One log line per request, when its response is sent or the client goes away: method, URL (its
 * secrets redacted, `loggedUrl`), status, time and request id, never headers (keys stay out). The same fields pino-http wrote
 * (`req`, `res`, `responseTime`), without a child logger and serialisers per request, which cost
 * several percent of the server's time under load. Levels: `info` for answers, `warn` for a 503,
 * `error` for any other 5xx and for a client that went away before the answer.
 */
export function requestLog(
  logger: Logger,
  /** Told of every request whose answer was sent whole ('finish'), with its time: the request logs (request-capture.ts). */
  answered?: (req: Request, res: Response, durationMs: number) => void,
): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // One listener: a response's 'close' follows its 'finish' (on the next tick) and comes alone
    // when the client went away first; whether it was sent whole is `writableFinished`.
    res.once("close", () => {
      const aborted = !res.writableFinished;
      const durationMs = performance.now() - started;
      if (!aborted) answered?.(req, res, durationMs);
      // A 503 is the documented answer while the database is away (its cause is logged once by
      // the pool): a warning, not an error per request.
      const level =
        aborted || (res.statusCode >= 500 && res.statusCode !== 503)
          ? "error"
          : res.statusCode === 503
            ? "warn"
            : "info";
      if (!logger.isLevelEnabled(level)) return;
      const url = loggedUrl(req.originalUrl);
      logger[level](
        {
          req: { id: res.locals.requestId, method: req.method, url },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(durationMs),
          ...(aborted ? { err: { message: "request aborted" } } : {}),
        },
        `${req.method} ${url} ${aborted ? "aborted" : res.statusCode}`,
      );
    });
    next();
  };
}
