import type { components } from "../../../../generated/api.js";
import type { components as DashboardComponents } from "../../../../generated/dashboard-api.js";

/** Every error code the APIs answer, from the spec: the public API's and the dashboard API's. */
export type ErrorCode = components["schemas"]["ErrorCode"] | DashboardComponents["schemas"]["DashboardErrorCode"];

/** One invalid field of a `VALIDATION_ERROR`. */
export type FieldError = components["schemas"]["FieldError"];

/** The closed catalogue: each code's HTTP status and default Portuguese message. */
export const errorCatalogue = {
  VALIDATION_ERROR: { status: 400, message: "Dados inválidos." },
  REQUEST_ERROR: { status: 400, message: "A requisição não pode ser atendida." },
  INSUFFICIENT_BALANCE: { status: 400, message: "Saldo disponível insuficiente." },
  UNAUTHORIZED: { status: 401, message: "Chave de API ausente, inválida ou revogada." },
  API_KEY_PERMISSION: { status: 403, message: "A chave de API não tem a permissão necessária." },
  API_KEY_IP: { status: 403, message: "Endereço IP não autorizado para esta chave de API." },
  WITHDRAW_DAILY_LIMIT: { status: 403, message: "Limite diário de saques da chave excedido." },
  ACCOUNT_NOT_ACTIVE: { status: 403, message: "A conta ainda não está habilitada para operar em produção." },
  TEST_MODE_ONLY: { status: 403, message: "Esta operação só está disponível com chave de teste." },
  NOT_FOUND: { status: 404, message: "Recurso não encontrado nesta conta e modo." },
  METHOD_NOT_ALLOWED: { status: 405, message: "Método HTTP não permitido para esta rota." },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: "A idempotency-key já foi usada com outro corpo de requisição." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "O corpo da requisição é grande demais." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "O corpo da requisição deve ser application/json." },
  RATE_LIMITED: { status: 429, message: "Muitas requisições. Aguarde e tente novamente." },
  INTERNAL_ERROR: { status: 500, message: "Erro interno. Tente novamente em instantes." },
  SERVICE_UNAVAILABLE: { status: 503, message: "Serviço temporariamente indisponível. Tente novamente em instantes." },
  INVALID_CREDENTIALS: { status: 401, message: "E-mail ou senha incorretos." },
  CSRF_REFUSED: {
    status: 403,
    message: "Requisição recusada: envie o x-csrf-token da sessão, a partir do próprio site.",
  },
  EMAIL_TAKEN: { status: 409, message: "Já existe um usuário com este e-mail. Entre, ou redefina a senha." },
  LAST_OWNER: {
    status: 409,
    message: "A conta precisa de ao menos um proprietário: promova outro membro antes.",
  },
  TWO_FACTOR_REQUIRED: {
    status: 401,
    message: "Informe o código do autenticador (ou um código de recuperação) em code.",
  },
  ROLE_FORBIDDEN: { status: 403, message: "Seu papel nesta conta não permite esta operação." },
  STEP_UP_REQUIRED: {
    status: 403,
    message: "Confirme com o código do autenticador (POST /dashboard/v1/session/step-up) para continuar.",
  },
  EMAIL_NOT_CONFIRMED: {
    status: 403,
    message: "Confirme seu e-mail antes (o link enviado no cadastro, ou o de uma redefinição de senha).",
  },
  TWO_FACTOR_SETUP_REQUIRED: {
    status: 403,
    message: "Esta conta exige verificação em duas etapas: ative-a (POST /dashboard/v1/me/two-factor) para continuar.",
  },
} as const satisfies Record<ErrorCode, { status: number; message: string }>;

/**
 * A refusal the API reports with one of the catalogue's codes. Thrown by the domain and the HTTP
 * layer alike; the error middleware writes it as the seed's error body.
 */
/** Seconds a client is told to wait (`Retry-After`) on `SERVICE_UNAVAILABLE`: the pool redials at once. */
export { serviceUnavailableRetryAfterSeconds } from "./policy.js";

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  /** `Retry-After` in seconds, for a refusal that lasts (a `RATE_LIMITED` the domain decides). */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, options: { errors?: FieldError[]; retryAfterSeconds?: number } = {}) {
    super(message ?? errorCatalogue[code].message);
    this.name = "DomainError";
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** A `VALIDATION_ERROR` naming one field. */
export function fieldError(path: string, message: string): DomainError {
  return new DomainError("VALIDATION_ERROR", "Dados inválidos.", { errors: [{ path, message }] });
}

export const notFound = (): DomainError => new DomainError("NOT_FOUND");
