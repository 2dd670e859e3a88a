import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { DomainError, serviceUnavailableRetryAfterSeconds } from "../../domain/core/errors.js";
import { renderMessagePage } from "../pages/message.js";
import type { CheckoutContext } from "./context.js";

/** The checkout's last handler: every failure leaves as a page in Portuguese, never a stack. */
export function checkoutFailure(ctx: CheckoutContext, logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const page = (status: number, title: string, text: string) =>
      ctx.send(res, status, renderMessagePage(ctx.frame(res), { title, text }));
    if (err instanceof DomainError && err.code === "NOT_FOUND") return ctx.notFoundPage(res);
    if (err instanceof DomainError && err.status < 500)
      return page(err.status, "Não foi possível continuar", err.message);
    if (err instanceof DomainError && err.code === "SERVICE_UNAVAILABLE") {
      // The database away (1 s), or the platform's bank down (its own wait; nothing was created).
      res.setHeader("Retry-After", String(err.retryAfterSeconds ?? serviceUnavailableRetryAfterSeconds));
      return page(503, "Serviço temporariamente indisponível", "Tente novamente em instantes.");
    }
    const status = (err as { status?: number }).status;
    if (status === 413 || (status === 400 && (err as { type?: string }).type !== undefined)) {
      return page(status, "Dados inválidos", "Recarregue a página.");
    }
    const requestId = String(res.getHeader("x-request-id") ?? "");
    logger.error({ err, requestId, path: req.path }, "checkout failure");
    page(500, "Algo deu errado", `Tente novamente em instantes.${requestId ? ` Código do erro: ${requestId}.` : ""}`);
  };
}
