import type { Express, Request, Response } from "express";
import { type Handlers, operationIds, operationTable } from "../../../generated/operations.js";
import type { RequestContext } from "./auth.js";

type AnyResult = { status: number; body: unknown; headers?: Record<string, string | number> };
type AnyHandler = (request: unknown, ctx: RequestContext) => Promise<AnyResult>;

/** Binds every operation of the generated contract to its handler. */
export function bindOperations(app: Express, handlers: Handlers<RequestContext>): void {
  for (const id of operationIds) {
    const meta = operationTable[id];
    const handler = handlers[id] as unknown as AnyHandler;
    app[meta.method](meta.expressPath, async (req: Request, res: Response) => {
      const context = res.locals.context as RequestContext;
      const result = await handler(
        { params: req.params, query: req.query, headers: req.headers, body: req.body },
        context,
      );
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
      res.status(result.status).json(result.body);
    });
  }
}
