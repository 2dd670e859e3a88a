import { pipeline } from "node:stream/promises";
import type { IRouter, NextFunction, Request, RequestHandler, Response } from "express";
import type { OperationMeta } from "../../../generated/operations.js";
import { fieldError, notFound } from "../domain/core/errors.js";
import { pageLimit } from "../domain/core/policy.js";
import { isUnstorableText } from "./control-chars.js";
import { replayedHeader, StoredReply } from "./replay.js";
import { dispatchOf } from "./request-validation.js";

/**
 * The page a list operation asks for: `limit` (default `pageLimit.default`) and `startingAfter`.
 * `limit` is checked again here: the validator coerces `?limit=Infinity` and `?limit=1e309` to a
 * number it lets through, which PostgreSQL's LIMIT refuses.
 */
export const pageFromQuery = (q: { limit?: number; startingAfter?: string }) => {
  const limit = q.limit ?? pageLimit.default;
  if (!Number.isInteger(limit) || limit < pageLimit.min || limit > pageLimit.max) {
    throw fieldError("limit", `deve ser um número inteiro de ${pageLimit.min} a ${pageLimit.max}`);
  }
  return { limit, startingAfter: q.startingAfter };
};

type AnyResult = { status: number; body?: unknown; headers?: Record<string, string | number> };

/** A body that is not JSON (generated `StreamedBody`): its media type and its chunks. */
interface Streamed {
  mediaType: string;
  chunks: AsyncIterable<string | Uint8Array>;
}

/** A JSON body never holds an async iterable: a body that does is streamed. */
const isStreamed = (body: unknown): body is Streamed =>
  typeof body === "object" &&
  body !== null &&
  typeof (body as Partial<Streamed>).mediaType === "string" &&
  typeof (body as Partial<Streamed>).chunks?.[Symbol.asyncIterator] === "function";

/**
 * Sends a streamed body: each chunk written as the connection takes it (`pipeline` waits for
 * `drain`), so no whole file is held. The first chunk is produced before anything is sent: a
 * failure there is an ordinary error answer. A failure after it aborts the connection (the error
 * middleware, seeing the headers sent, destroys the socket): a chunked answer without its last
 * chunk, which no client takes as complete. A client that hangs up just ends the stream.
 */
async function sendStreamed(res: Response, status: number, body: Streamed): Promise<void> {
  const chunks = body.chunks[Symbol.asyncIterator]();
  const first = await chunks.next();
  res.status(status).type(body.mediaType);
  let begun = false;
  async function* all() {
    begun = true;
    try {
      if (!first.done) yield first.value;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    } finally {
      await chunks.return?.();
    }
  }
  try {
    await pipeline(all(), res);
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_STREAM_PREMATURE_CLOSE") return;
    throw error;
  } finally {
    // A client gone before the pipeline pulled once: the chunks are still told they are abandoned
    // (an export gives its slot back then).
    if (!begun) await chunks.return?.();
  }
}
type AnyHandler<Ctx> = (request: unknown, ctx: Ctx) => Promise<AnyResult | StoredReply>;

/**
 * Binds every operation of a generated contract to its handler: the handler gets the validated
 * params, query, headers and body, and answers a status with a body (or none, for 204), a
 * streamed body (`text/csv`, `sendStreamed`), or a `StoredReply`, sent as its exact bytes with
 * `Idempotent-Replayed: true`.
 *
 * One middleware dispatches by the operation the request check (mounted before it) matched: the
 * handler that runs is the one whose schemas the request was checked against, and a request is
 * not matched a second time, route by route, by Express. A request the check did not match passes on.
 *
 * `context` reads what authentication parked for the request (`res.locals`, http/locals.ts).
 */
export function bindOperations<Ctx, H extends object>(
  app: IRouter,
  table: Record<string, OperationMeta>,
  handlers: H,
  context: (res: Response) => Ctx | undefined,
): void {
  app.use(operationDispatcher(table, handlers, context));
}

/** `bindOperations`'s one middleware, for a pipeline that runs it as one of its steps (`steps`). */
export function operationDispatcher<Ctx, H extends object>(
  table: Record<string, OperationMeta>,
  handlers: H,
  context: (res: Response) => Ctx | undefined,
): RequestHandler {
  const byOperation = new Map<string, (req: Request, res: Response) => Promise<void>>();
  for (const id of Object.keys(table)) {
    const handler = (handlers as Record<string, AnyHandler<Ctx>>)[id];
    if (!handler) throw new Error(`no handler for operation ${id}`);
    byOperation.set(id, async (req, res) => {
      // No id holds NUL or malformed Unicode: such a path names nothing (and PostgreSQL refuses it).
      if (Object.values(req.params).some((v) => typeof v === "string" && isUnstorableText(v))) throw notFound();
      const ctx = context(res);
      // Parked by a step before the request check (authentication): its absence is a pipeline out of order.
      if (ctx === undefined) throw new Error(`no context for operation ${id}`);
      const result = await handler({ params: req.params, query: req.query, headers: req.headers, body: req.body }, ctx);
      if (result instanceof StoredReply) {
        res.setHeader(replayedHeader, "true");
        res.locals.answerText = result.text;
        res.status(result.status).type("application/json").send(result.text);
        return;
      }
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
      if (isStreamed(result.body)) await sendStreamed(res, result.status, result.body);
      else if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    });
  }
  return (req: Request, res: Response, next: NextFunction) => {
    const dispatch = dispatchOf(res);
    const run = dispatch === undefined ? undefined : byOperation.get(dispatch.operationId);
    if (!run || !dispatch) return next();
    req.params = dispatch.params;
    return run(req, res);
  };
}

/**
 * Middlewares run one after another as one: what Express does for consecutive `app.use` layers
 * (a step's `next()` runs the next step, `next(value)` leaves with it, a thrown error or a
 * rejected promise is `next(error)`), without the router's matching and bookkeeping per layer,
 * which it repeats for every request. For a path where every step applies to every request.
 */
export function steps(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (value?: unknown): void => {
      if (value !== undefined && value !== null && value !== false) return done(value);
      const handler = handlers[index++];
      if (handler === undefined) return done();
      try {
        const out: unknown = handler(req, res, next);
        if (out instanceof Promise) out.catch((error: unknown) => done(error ?? new Error("rejected")));
      } catch (error) {
        done(error);
      }
    };
    next();
  };
}
