import type { ErrorObject } from "ajv";
import type { FieldError } from "../../domain/core/errors.js";

// Ajv's structured errors (keyword, params, instancePath) as the seed's field errors in
// Portuguese: for the API's request check (`http/request-checks.ts`) and the hosted checkout's form
// (`checkout/payer.ts`). docs/decisions/0049-request-validation-owned-and-generated.md.

/** What a query parameter the operation does not declare is told, under its name as sent. */
export const unknownQueryParameterMessage = "parâmetro de consulta desconhecido nesta operação";

/** What a query parameter sent with no value (`?limit=`) is told. */
export const emptyQueryParameterMessage = "não pode ser vazio";

/** The bounds of the text field an error is about, when the caller has its schema. */
interface TextBounds {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** The longest `message` of a field error (`maxMessageLength`, spec/common/scalars.tsp). */
const maxMessageLength = 1000;

/**
 * "deve ser um dos valores: a, b, c": every value while they fit in a field error's message, else
 * the ones that fit and where to find the rest (the audit log's actions outgrew the bound).
 */
function oneOfMessage(values: readonly unknown[]): string {
  const whole = `deve ser um dos valores: ${values.join(", ")}`;
  if (whole.length <= maxMessageLength) return whole;
  const rest = ", … (a lista completa está na documentação)";
  const fits = whole.slice(0, maxMessageLength - rest.length);
  return `${fits.slice(0, fits.lastIndexOf(", "))}${rest}`;
}

const formatMessages: Record<string, string> = {
  email: "deve ser um e-mail válido",
  "date-time": "deve ser data e hora ISO 8601 em UTC, terminando em Z",
  uri: "deve ser um endereço (URL) válido",
  int64: "deve ser um número inteiro de no máximo 9007199254740991",
};

const typeMessages: Record<string, string> = {
  integer: "deve ser um número inteiro",
  number: "deve ser um número",
  string: "deve ser um texto",
  boolean: "deve ser verdadeiro ou falso",
  object: "deve ser um objeto",
  array: "deve ser uma lista",
  null: "deve ser nulo",
};

const comparisons: Record<string, string> = {
  ">=": "maior ou igual a",
  "<=": "menor ou igual a",
  ">": "maior que",
  "<": "menor que",
};

/** The patterns of the documents with a message of their own; any other pattern is "formato inválido". */
function patternMessage(pattern: string): string {
  // The bank connection's addresses (`BankHttpsUrl`, spec/admin/bank-connection.tsp): no user or password.
  if (pattern === "^https://[^\\s/?#@]+([/?#][^\\s]*)?$") {
    return "deve ser um endereço https, sem usuário nem senha antes do host (as credenciais vão em clientId e clientSecret)";
  }
  if (pattern.startsWith("^https:")) return "deve ser um endereço https";
  // The date-time (and date) scalars of spec/common/scalars.tsp.
  if (pattern.startsWith("^(19[7-9]")) {
    return "deve ser data e hora ISO 8601 em UTC, terminando em Z, entre os anos 1970 e 9999";
  }
  if (pattern === "^[0-9]+$") return "deve conter apenas dígitos";
  // A person's name in the dashboard (`UserName`, spec/dashboard/models.tsp).
  if (pattern.startsWith("^[^\\S\\u0000-\\u001F")) {
    return "deve ter ao menos 2 caracteres além de espaços, sem quebra de linha nem caractere de controle";
  }
  return "formato inválido";
}

/** A length or digits-only rule of a field with both bounds, said whole: "deve ter de 8 a 20 dígitos". */
function wholeLengthRule(error: ErrorObject, bounds: TextBounds | undefined): string | null {
  if (bounds?.minLength === undefined || bounds.maxLength === undefined) return null;
  const digits = bounds.pattern === "^[0-9]+$";
  const about =
    error.keyword === "minLength" || error.keyword === "maxLength" || (digits && error.keyword === "pattern");
  if (!about) return null;
  const unit = digits ? "dígitos" : "caracteres";
  const { minLength: min, maxLength: max } = bounds;
  return min === max ? `deve ter ${min} ${unit}` : `deve ter de ${min} a ${max} ${unit}`;
}

/**
 * One Ajv error in Portuguese, from its keyword and params. With the field's schema (`bounds`, the
 * checkout's form), a length or digits-only rule of a field with both bounds is said whole.
 */
export function validationMessage(error: ErrorObject, bounds?: TextBounds): string {
  const whole = wholeLengthRule(error, bounds);
  if (whole) return whole;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const comparison = comparisons[String(params.comparison)];
      return comparison ? `deve ser ${comparison} ${String(params.limit)}` : "valor inválido";
    }
    case "minLength":
      return `deve ter no mínimo ${String(params.limit)} caracteres`;
    case "maxLength":
      return `deve ter no máximo ${String(params.limit)} caracteres`;
    case "minItems":
      return `deve ter no mínimo ${String(params.limit)} itens`;
    case "maxItems":
      return `deve ter no máximo ${String(params.limit)} itens`;
    case "format":
      return formatMessages[String(params.format)] ?? `deve estar no formato ${String(params.format)}`;
    case "pattern":
      return patternMessage(String(params.pattern));
    case "type":
      // `string,null` (a nullable field) is told its first type.
      return typeMessages[String(params.type).split(",")[0] ?? ""] ?? "valor inválido";
    case "required":
      return "campo obrigatório";
    case "additionalProperties":
    case "not":
      return "campo não permitido";
    case "enum":
      return oneOfMessage((params.allowedValues as unknown[] | undefined) ?? []);
    case "const":
      return "valor não permitido";
    default:
      return "valor inválido";
  }
}

/**
 * The seed's path of one Ajv error: the instance's JSON pointer as dotted names, with the missing or
 * extra property last (`/customer` + `document` → `customer.document`). `skip` leading segments
 * are dropped (`/query/limit` → `limit`); nothing left names `whole` (the body itself: `body`).
 */
export function validationPath(error: ErrorObject, skip = 0, whole = "body"): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .slice(skip);
  const last = params.missingProperty ?? params.additionalProperty;
  if (last !== undefined) segments.push(last);
  // A name that is empty is no segment (`{"": 1}` names its object), a dotted one reads as its parts.
  const path = segments.filter((s) => s.length > 0).join(".");
  return path || whole;
}

/** Ajv's errors, each with its path, as field errors: the first message of each path, at most `limit` paths. */
export function fieldErrorsOf(
  errors: readonly { error: ErrorObject; path: string; bounds?: TextBounds | undefined }[],
  limit: number,
): FieldError[] {
  const seen = new Set<string>();
  const fieldErrors: FieldError[] = [];
  for (const { error, path, bounds } of errors) {
    if (fieldErrors.length === limit) break;
    if (seen.has(path)) continue;
    seen.add(path);
    fieldErrors.push({ path, message: validationMessage(error, bounds) });
  }
  return fieldErrors;
}
