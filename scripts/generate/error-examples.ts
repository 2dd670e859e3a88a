// Step 3 of `npm run generate`: an example for every error status an operation declares.
//
// The spec's `@opExample`s show each operation's success and its main errors. The other error
// statuses (a 429 or a 503 can come from any route) had none, and the API reference then showed
// a body Swagger UI made up from the schema, `"code": "VALIDATION_ERROR"` on a 404 (issue 24
// §4.8). Those answers are mechanical: the same cause gives the same body on every route, save
// its path (and the permission a 403 names). So every declared 4xx/5xx status without an example
// gets the body the server writes for its most common cause, for that operation.
// `server/test/http/error-examples.test.ts` provokes each kind on a real server and compares.
import { isMap, type Document, parseDocument, Scalar, visit, type YAMLMap } from "yaml";

/** The timestamp of every example (the spec's examples use the same instant). */
const at = "2026-10-04T15:30:00.000Z";

/** What an example is made from: one operation of one document. */
export interface ExampleOperation {
  document: "public" | "admin" | "dashboard";
  method: string;
  /** The path template, `/api/v1/transactions/{id}`. */
  template: string;
  /** The public operation's key permission (`x-permission`). */
  permission: string | undefined;
  /** The dashboard operation's roles (`x-roles`). */
  roles?: string[] | undefined;
}

/** One generated example: its name in `examples`, and the Example object. */
export interface ErrorExample {
  name: string;
  summary: string;
  description: string;
  value: {
    ok: false;
    code: string;
    message: string;
    errors?: { path: string; message: string }[];
    path: string;
    timestamp: string;
  };
}

/** Sample ids by the path segment they follow, so an example's path names a plausible object. */
const sampleIds: Record<string, string> = {
  transactions: "txn_4Fq9ZtR2mXwP8LkA3cD7",
  "payment-links": "plk_2Bc4De6Fg8Hi0Jk2Lm4N",
  customers: "cus_8Hj3KmN5pQ7rS9tV2wX4",
  withdrawals: "wdr_6Yh8Uj0Ik2Ol4Pm6Qn8R",
  refunds: "rfd_5Tg7Yh9Uj1Ik3Ol5Pm7Q",
  recurrences: "rec_5Hn7Jp9Lr1Tv3Xz5Bd7F",
  events: "evt_3Ed5Rf7Tg9Yh1Uj3Ik5O",
  disputes: "dsp_1Qa2Ws3Ed4Rf5Tg6Yh7U",
  accounts: "acc_9Xc2Vb4Nm6Qw8Er0Ty2U",
  "api-keys": "key_7Ui9Op1As3Df5Gh7Jk9L",
  "webhook-endpoints": "we_1Zx3Cv5Bn7Mm9Qw1Er3Ty",
  sessions: "ses_0Fq9ZtR2mXwP8LkA3cD7",
  // The dashboard's `/modes/{mode}/…`: a mode, not an object.
  modes: "test",
};

/** The template with each `{param}` replaced by a sample id for the segment before it. */
export function samplePath(template: string): string {
  const segments = template.split("/");
  return segments
    .map((segment, i) => (/^\{.+\}$/.test(segment) ? (sampleIds[segments[i - 1] ?? ""] ?? "id_0") : segment))
    .join("/");
}

const body = (code: string, message: string, path: string, errors?: ErrorExample["value"]["errors"]) => ({
  ok: false as const,
  code,
  message,
  ...(errors ? { errors } : {}),
  path,
  timestamp: at,
});

/**
 * The example of `status` for `op`, or null when no mechanical one exists (the spec must then
 * write it with `@opExample`: the operator's 403, for instance, has one cause of its own).
 */
export function errorExample(op: ExampleOperation, status: string): ErrorExample | null {
  const path = samplePath(op.template);
  const operator = op.document === "admin";
  const dashboard = op.document === "dashboard";
  switch (status) {
    case "400":
      return {
        name: "unknownQueryParameter",
        summary: "unknownQueryParameter",
        description: "A query parameter the operation does not take (here `?expand=true`) is refused by name.",
        value: body("VALIDATION_ERROR", "Dados inválidos.", path, [
          { path: "expand", message: "parâmetro de consulta desconhecido nesta operação" },
        ]),
      };
    case "401":
      if (dashboard) {
        return {
          name: "unauthorized",
          summary: "unauthorized",
          description: "No session cookie, or a session that expired or was ended.",
          value: body("UNAUTHORIZED", "Sessão ausente, expirada ou encerrada. Entre novamente.", path),
        };
      }
      return {
        name: "unauthorized",
        summary: "unauthorized",
        description: operator ? "Missing or wrong ADMIN_TOKEN." : "No key, or an invalid or revoked one.",
        value: operator
          ? body("UNAUTHORIZED", "Token de operador ausente ou inválido.", path)
          : body("UNAUTHORIZED", "Chave de API ausente, inválida ou revogada.", path),
      };
    case "403":
      if (dashboard) {
        if (op.roles && op.roles.length > 0 && op.roles.length < 5) {
          return {
            name: "roleForbidden",
            summary: "roleForbidden",
            description: `A user whose role is not among \`x-roles\` (${op.roles.join(", ")}).`,
            value: body("ROLE_FORBIDDEN", "Seu papel nesta conta não permite esta operação.", path),
          };
        }
        if (op.method === "get") {
          return {
            name: "twoFactorSetupRequired",
            summary: "twoFactorSetupRequired",
            description: "The account requires two-factor authentication and this user has not turned it on.",
            value: body(
              "TWO_FACTOR_SETUP_REQUIRED",
              "Esta conta exige verificação em duas etapas: ative-a (POST /dashboard/v1/me/two-factor) para continuar.",
              path,
            ),
          };
        }
        return {
          name: "csrfRefused",
          summary: "csrfRefused",
          description: "A change without the session's `x-csrf-token`, or with an `Origin` of another site.",
          value: body(
            "CSRF_REFUSED",
            "Requisição recusada: envie o x-csrf-token da sessão, a partir do próprio site.",
            path,
          ),
        };
      }
      if (operator || !op.permission) return null;
      return {
        name: "missingPermission",
        summary: "missingPermission",
        description: `The key does not hold \`${op.permission}\`.`,
        value: body("API_KEY_PERMISSION", `A chave de API não tem a permissão necessária: ${op.permission}.`, path),
      };
    case "404":
      // An object's id in the path (the dashboard's mode is none): no such object; otherwise no such route.
      if (/\{(?!mode\})[^}]+\}/.test(op.template)) {
        return {
          name: "notFound",
          summary: "notFound",
          description: operator
            ? "No object with this id."
            : "No object with this id in the key's account and mode (an object of the other mode is not found either).",
          value: body("NOT_FOUND", "Recurso não encontrado nesta conta e modo.", path),
        };
      }
      return {
        name: "routeNotFound",
        summary: "routeNotFound",
        description: "Another spelling of the path (here with a trailing slash): paths are exact and case-sensitive.",
        value: body("NOT_FOUND", `Rota não encontrada: ${op.method.toUpperCase()} ${path}/.`, `${path}/`),
      };
    case "409":
      // The dashboard's sign-up (no session) has a conflict of its own; with a session, a 409 is
      // a change that takes an `idempotency-key`.
      if (dashboard && !op.roles?.length) return null;
      return {
        name: "idempotencyKeyReused",
        summary: "idempotencyKeyReused",
        description: "The `idempotency-key` was used within 24 hours with another request.",
        value: body("IDEMPOTENCY_KEY_REUSED", "A idempotency-key já foi usada com outro corpo de requisição.", path),
      };
    case "413":
      return {
        name: "payloadTooLarge",
        summary: "payloadTooLarge",
        description: "A body larger than 64 KiB.",
        value: body("PAYLOAD_TOO_LARGE", "O corpo da requisição é grande demais.", path),
      };
    case "415":
      return {
        name: "unsupportedMediaType",
        summary: "unsupportedMediaType",
        description: "A body sent as something other than `application/json`.",
        value: body("UNSUPPORTED_MEDIA_TYPE", "O corpo da requisição deve ser application/json.", path),
      };
    case "429":
      return {
        name: "rateLimited",
        summary: "rateLimited",
        description: operator
          ? "Too many failed authentications from this IP address; `Retry-After` says when to try again."
          : "This IP address spent its budget for the minute; `Retry-After` says when to try again.",
        value: operator
          ? body(
              "RATE_LIMITED",
              "Muitas tentativas com token de operador ausente ou inválido a partir deste endereço. Aguarde 30 segundos e tente novamente.",
              path,
            )
          : body("RATE_LIMITED", "Muitas requisições. Aguarde 30 segundos e tente novamente.", path),
      };
    case "500":
      return {
        name: "internalError",
        summary: "internalError",
        description: "A failure on the service's side; retry shortly (with the same `idempotency-key`).",
        value: body("INTERNAL_ERROR", "Erro interno. Tente novamente em instantes.", path),
      };
    case "503":
      return {
        name: "serviceUnavailable",
        summary: "serviceUnavailable",
        description: "The database cannot be reached for a moment; retry after `Retry-After`.",
        value: body("SERVICE_UNAVAILABLE", "Serviço temporariamente indisponível. Tente novamente em instantes.", path),
      };
    default:
      return null;
  }
}

const methods = ["get", "put", "post", "patch", "delete"] as const;

/**
 * Adds the missing error examples to an emitted document (YAML text), leaving every other line as
 * it was. Throws when an error status has no example and none can be made, naming the operation.
 */
export function addErrorExamples(yamlText: string, document: ExampleOperation["document"]): string {
  const doc = parseDocument(yamlText);
  const paths = doc.get("paths") as YAMLMap<string, YAMLMap> | undefined;
  for (const pathItem of paths?.items ?? []) {
    const template = String(pathItem.key);
    for (const method of methods) {
      const operation = pathItem.value?.get(method);
      if (!isMap(operation)) continue;
      const permission = operation.get("x-permission");
      const roles = operation.toJSON()["x-roles"] as unknown;
      const op: ExampleOperation = {
        document,
        method,
        template,
        permission: typeof permission === "string" ? permission : undefined,
        roles: Array.isArray(roles) ? roles.map(String) : undefined,
      };
      const responses = operation.get("responses") as YAMLMap<string, YAMLMap> | undefined;
      for (const response of responses?.items ?? []) {
        const status = String(response.key);
        if (!/^[45]/.test(status)) continue;
        addExample(doc, response.value?.getIn(["content", "application/json"]), op, status);
      }
    }
  }
  return doc.toString({ lineWidth: 0 });
}

function addExample(doc: Document, media: unknown, op: ExampleOperation, status: string): void {
  const where = `${op.method.toUpperCase()} ${op.template} ${status}`;
  if (!isMap(media)) throw new Error(`${where}: an error response without an application/json body`);
  if (media.has("examples") || media.has("example")) return;
  const example = errorExample(op, status);
  if (!example) throw new Error(`${where}: no example, and none can be made; write one with @opExample`);
  const { name, ...object } = example;
  const node = doc.createNode({ [name]: object });
  // Quoted as the emitter quotes them: a YAML 1.1 reader (js-yaml's default) takes a plain
  // ISO 8601 text for a timestamp, not a string.
  visit(node, {
    Scalar(_key, scalar) {
      if (typeof scalar.value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(scalar.value))
        scalar.type = Scalar.QUOTE_SINGLE;
    },
  });
  media.set("examples", node);
}
