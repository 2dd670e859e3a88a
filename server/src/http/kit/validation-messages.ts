// The validator's (Ajv's) English messages and paths as the seed's field errors in Portuguese:
// for the API's error body (`http/errors.ts`) and the hosted checkout's form (`checkout/payer.ts`).

/** What a query parameter the operation does not declare is told, under its name as sent. */
export const unknownQueryParameterMessage = "parâmetro de consulta desconhecido nesta operação";

/** The bounds of the text field an error is about, when the caller has its schema. */
export interface TextBounds {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/**
 * Portuguese for the validator's (Ajv's) English messages. Given the field's schema (`bounds`), a
 * length or digits-only rule of a field with both bounds is said whole: "deve ter de 8 a 20
 * dígitos" rather than only the bound that failed.
 */
export function translateValidationMessage(message: string, bounds?: TextBounds): string {
  const whole = wholeLengthRule(message, bounds);
  if (whole) return whole;
  const rules: [RegExp, (m: RegExpMatchArray) => string][] = [
    [/^must be >= (\S+)/, (m) => `deve ser maior ou igual a ${m[1]}`],
    [/^must be <= (\S+)/, (m) => `deve ser menor ou igual a ${m[1]}`],
    [/^must be > (\S+)/, (m) => `deve ser maior que ${m[1]}`],
    [/^must be < (\S+)/, (m) => `deve ser menor que ${m[1]}`],
    [/^must NOT have fewer than (\d+) characters/, (m) => `deve ter no mínimo ${m[1]} caracteres`],
    [/^must NOT have more than (\d+) characters/, (m) => `deve ter no máximo ${m[1]} caracteres`],
    [/^must NOT have more than (\d+) items/, (m) => `deve ter no máximo ${m[1]} itens`],
    [/^must NOT have fewer than (\d+) items/, (m) => `deve ter no mínimo ${m[1]} itens`],
    [/^must match format "email"/, () => "deve ser um e-mail válido"],
    [/^must match format "date-time"/, () => "deve ser data e hora ISO 8601 em UTC, terminando em Z"],
    [/^must match format "uri"/, () => "deve ser um endereço (URL) válido"],
    [/^must match format "int64"/, () => "deve ser um número inteiro de no máximo 9007199254740991"],
    [/^must match format "(.+)"/, (m) => `deve estar no formato ${m[1]}`],
    [/^must match pattern "\^https:/, () => "deve ser um endereço https"],
    [
      /^must match pattern "\^\(19\[7-9\]/,
      () => "deve ser data e hora ISO 8601 em UTC, terminando em Z, entre os anos 1970 e 9999",
    ],
    [/^must match pattern "\^\[0-9\]\+\$"/, () => "deve conter apenas dígitos"],
    [/^must match pattern/, () => "formato inválido"],
    [/^must be integer/, () => "deve ser um número inteiro"],
    [/^must be number/, () => "deve ser um número"],
    [/^must be string/, () => "deve ser um texto"],
    [/^must be boolean/, () => "deve ser verdadeiro ou falso"],
    [/^must be object/, () => "deve ser um objeto"],
    [/^must be array/, () => "deve ser uma lista"],
    [/^must be null/, () => "deve ser nulo"],
    [/^must have required property/, () => "campo obrigatório"],
    [/^must NOT have additional properties/, () => "campo não permitido"],
    [/^must NOT be valid/, () => "campo não permitido"],
    [/^must be equal to one of the allowed values:?\s*(.*)/, (m) => oneOf(m[1] ?? "")],
    [/^must be equal to constant/, () => "valor não permitido"],
    [/must be url encoded/i, () => "deve ser codificado para URL (por exemplo, / como %2F)"],
    [/^Unknown query parameter/, () => unknownQueryParameterMessage],
    [/^Empty value found for query parameter/, () => "não pode ser vazio"],
    [/^format is unsupported|unknown format/i, () => "formato inválido"],
  ];
  for (const [pattern, render] of rules) {
    const match = message.match(pattern);
    if (match) return render(match);
  }
  return "valor inválido";
}

/** The longest `message` of a field error (`maxMessageLength`, spec/common/scalars.tsp). */
const maxMessageLength = 1000;

/**
 * "deve ser um dos valores: a, b, c": every value while they fit in a field error's message, else
 * the ones that fit and where to find the rest (the audit log's actions outgrew the bound).
 */
function oneOf(values: string): string {
  const whole = `deve ser um dos valores: ${values}`;
  if (whole.length <= maxMessageLength) return whole;
  const rest = ", … (a lista completa está na documentação)";
  const fits = whole.slice(0, maxMessageLength - rest.length);
  return `${fits.slice(0, fits.lastIndexOf(", "))}${rest}`;
}

function wholeLengthRule(message: string, bounds: TextBounds | undefined): string | null {
  if (bounds?.minLength === undefined || bounds.maxLength === undefined) return null;
  const digits = bounds.pattern === "^[0-9]+$";
  const about =
    /^must NOT have (fewer|more) than \d+ characters/.test(message) || (digits && /^must match pattern/.test(message));
  if (!about) return null;
  const unit = digits ? "dígitos" : "caracteres";
  const { minLength: min, maxLength: max } = bounds;
  return min === max ? `deve ter ${min} ${unit}` : `deve ter de ${min} a ${max} ${unit}`;
}

export interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
  params?: { missingProperty?: string; additionalProperty?: string };
}

/** `/body/customer/document` → `customer.document`; `/query/limit` → `limit`. */
export function fieldPath(item: ValidatorErrorItem): string {
  const raw = (item.path ?? "").replace(/^\.?\/?(body|query|headers|path|params)(\/|\.|$)/, "");
  let parts = raw.split(/[/.]/).filter((p) => p.length > 0);
  const extra = item.params?.additionalProperty;
  if (extra !== undefined && parts[parts.length - 1] !== extra) parts = [...parts, extra];
  const missing = item.params?.missingProperty;
  if (missing !== undefined && parts[parts.length - 1] !== missing) parts = [...parts, missing];
  const path = parts.join(".");
  if (path) return path;
  return /^\.?\/?body/.test(item.path ?? "") ? "body" : (item.path ?? "body");
}
