// What the dashboard API answers when it refuses: the seed's error body, messages in Portuguese.

import { formatMoney } from "../lib/format";

export interface FieldProblem {
  path: string;
  message: string;
}

/** A refusal of the dashboard API (any non-2xx), carrying the server's own words. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: FieldProblem[];
  /** `Retry-After`, in seconds, when the server sent one. */
  readonly retryAfter: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    errors: FieldProblem[] = [],
    retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.retryAfter = retryAfter;
  }

  /** The error of a response that is not 2xx, read from its body (or its status when it has none). */
  static async from(response: Response): Promise<ApiError> {
    const retry = Number(response.headers.get("retry-after"));
    const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
    let body: unknown = null;
    try {
      body = await response.clone().json();
    } catch {
      // not JSON: the status speaks
    }
    if (body && typeof body === "object" && typeof (body as { code?: unknown }).code === "string") {
      const b = body as { code: string; message?: unknown; errors?: unknown };
      const errors = Array.isArray(b.errors)
        ? b.errors.flatMap((e: unknown) => {
            const item = e as { path?: unknown; field?: unknown; message?: unknown };
            const path = typeof item.path === "string" ? item.path : typeof item.field === "string" ? item.field : "";
            return typeof item.message === "string" ? [{ path, message: item.message }] : [];
          })
        : [];
      const message = typeof b.message === "string" ? b.message : statusMessage(response.status);
      return new ApiError(response.status, b.code, message, errors, retryAfter);
    }
    return new ApiError(response.status, `HTTP_${response.status}`, statusMessage(response.status), [], retryAfter);
  }
}

function statusMessage(status: number): string {
  if (status === 401) return "Sessão ausente, expirada ou encerrada. Entre novamente.";
  if (status === 403) return "Operação não permitida.";
  if (status === 404) return "Não encontrado.";
  if (status === 429) return "Muitas requisições. Aguarde um pouco e tente novamente.";
  if (status >= 500) return `O servidor falhou (HTTP ${status}). Tente novamente em instantes.`;
  return `Requisição recusada (HTTP ${status}).`;
}

/** The message to show for any error: the server's, or one for a network failure. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError)
    return "Não foi possível falar com o servidor. Verifique sua conexão e tente novamente.";
  return error instanceof Error && error.message ? error.message : "Algo deu errado. Tente novamente.";
}

/**
 * The server's message of each field, by its path (`amountCents`, `customer.document`); a path a
 * form does not show stays in `rest`, to be shown with the form's own message.
 */
/**
 * A money field's message in the reais the person typed: the API counts cents (`amountCents`
 * "deve ser maior ou igual a 500"), the form asks reais ("… a R$ 5,00").
 */
function inReais(path: string, message: string): string {
  // A message already in reais ("o desconto até 2030-12-11 (R$ 10,00) alcança …") stays as it is;
  // a calendar date's numbers are never cents.
  if (!/Cents$/.test(path) || message.includes("R$")) return message;
  return message.replace(/(?<![\d-])\d+(?![\d-])/g, (cents) => formatMoney(Number(cents)));
}

/** A calendar date of a message (`não pode ser anterior a hoje (2030-12-10)`) as the form writes it: `10/12/2030`. */
const daysAsTyped = (message: string): string =>
  message.replace(/\b(\d{4})-(\d{2})-(\d{2})\b(?!T)/g, (_, y: string, m: string, d: string) => `${d}/${m}/${y}`);

export function fieldErrors(
  error: unknown,
  shown: readonly string[] = [],
): { byField: Record<string, string>; rest: FieldProblem[] } {
  const byField: Record<string, string> = {};
  const rest: FieldProblem[] = [];
  if (!(error instanceof ApiError)) return { byField, rest };
  for (const problem of error.errors) {
    const field = shown.find(
      (name) => problem.path === name || problem.path.startsWith(`${name}.`) || problem.path.startsWith(`${name}[`),
    );
    const message = daysAsTyped(inReais(problem.path, problem.message));
    if (field !== undefined && byField[field] === undefined) byField[field] = message;
    else rest.push({ ...problem, message });
  }
  return { byField, rest };
}

export const isApiError = (error: unknown, code?: string): error is ApiError =>
  error instanceof ApiError && (code === undefined || error.code === code);
