import type { Request, Response } from "express";
import type { Domain } from "../domain/service.js";

/**
 * The request logs' capture (issue 37 §2; docs/decisions/0058-request-logs.md): after a public
 * API request's answer is sent, what the pipeline already holds is handed to
 * `requestLogs.record` — the caller parked by authentication (only a request made with a key
 * has one), its operation, the parsed body, and the JSON text `res.json` sent
 * (`res.locals.answerText`). No copy, no masking, no write here: the flush does that work later.
 */
export function requestCapture(domain: Domain) {
  const logs = domain.requestLogs;
  return (req: Request, res: Response, durationMs: number): void => {
    const { context, route } = res.locals;
    if (!context || !route) return;
    const url = req.originalUrl;
    const queryStart = url.indexOf("?");
    logs.record({
      caller: "actor" in context ? { actor: context.actor } : { credentials: context.credentials },
      method: req.method,
      path: queryStart < 0 ? url : url.slice(0, queryStart),
      route: route.meta.path,
      query: queryStart < 0 ? undefined : (req.query as Record<string, unknown>),
      status: res.statusCode,
      durationMs,
      requestId: res.locals.requestId ?? "",
      requestBody: req.body as unknown,
      responseText: res.locals.answerText,
    });
  };
}
