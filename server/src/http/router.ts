import type { IRouter, NextFunction, Request, Response } from "express";
import type { OperationMeta } from "../../../generated/operations.js";
import { fieldError, notFound } from "../domain/errors.js";
import { pageLimit } from "../domain/policy.js";
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
type AnyHandler<Ctx> = (request: unknown, ctx: Ctx) => Promise<AnyResult | StoredReply>;

/**
 * Binds every operation of a generated contract to its handler: the handler gets the validated
 * params, query, headers and body, and answers a status with a body (or none, for 204), or a
 * `StoredReply`, sent as its exact bytes with `Idempotent-Replayed: true`.
 *
 * One middleware dispatches by the operation the request check (mounted before it) matched: the
 * handler that runs is the one whose schemas the request was checked against, and a request is
 * not matched a second time, route by route, by Express. A request the check did not match passes on.
 *
 * With `validateResponses`, the validator gets a copy of each body: it writes into the object it
 * checks (its date serialisation), and a body may hold shared views, which are frozen.
 */
export function bindOperations<Ctx, H extends object>(
  app: IRouter,
  table: Record<string, OperationMeta>,
  handlers: H,
  context: (res: Response) => Ctx,
  options: { validateResponses: boolean },
): void {
  const byOperation = new Map<string, (req: Request, res: Response) => Promise<void>>();
  for (const id of Object.keys(table)) {
    const handler = (handlers as Record<string, AnyHandler<Ctx>>)[id];
    if (!handler) throw new Error(`no handler for operation ${id}`);
    byOperation.set(id, async (req, res) => {
      // No id holds NUL or malformed Unicode: such a path names nothing (and PostgreSQL refuses it).
      if (Object.values(req.params).some((v) => typeof v === "string" && isUnstorableText(v))) throw notFound();
      const result = await handler(
        { params: req.params, query: req.query, headers: req.headers, body: req.body },
        context(res),
      );
      if (result instanceof StoredReply) {
        res.setHeader(replayedHeader, "true");
        res.status(result.status).type("application/json").send(result.text);
        return;
      }
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
      if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(options.validateResponses ? structuredClone(result.body) : result.body);
    });
  }
  app.use((req: Request, res: Response, next: NextFunction) => {
    const dispatch = dispatchOf(res);
    const run = dispatch === undefined ? undefined : byOperation.get(dispatch.operationId);
    if (!run || !dispatch) return next();
    req.params = dispatch.params;
    return run(req, res);
  });
}
