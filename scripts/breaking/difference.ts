/** What one breaking difference says, and the documents it is found in. */

/**
 * A value before or after a change: a number, a string or a boolean as the document has it (a
 * list of patterns when several hold at one place), `absent` where there was none, and `present`
 * for a whole schema, parameter, response or operation.
 */
export type Value = string | number | boolean | string[];

/** One breaking difference: what changed where, from which value to which. */
export interface BreakingDifference {
  /** The kind of change, for people: `request.parameter.remove`, `response.body.enum.add`. */
  code: string;
  /**
   * Where, as a dotted path into the document: `paths./api/v1/withdrawals.post.requestBody.content.
   * application/json.schema.properties.pixKeyType.enum`. A parameter is named `<in>:<name>`
   * (`parameters.query:active`), never by its index; an enum value or a required field is named
   * by `from`/`to`, not by its index in the list.
   */
  location: string;
  from: Value;
  to: Value;
}

export type OpenApiDocument = {
  info: { version: string };
  paths?: Record<string, unknown>;
  components?: unknown;
  "x-webhooks"?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } }>;
  [key: string]: unknown;
};

/** The `Value` a difference shows for what sat at its location (`undefined`: nothing did). */
export function valueOf(node: unknown): Value {
  if (node === undefined || node === null) return "absent";
  if (Array.isArray(node) && node.every((item) => typeof item === "string")) return node;
  if (typeof node === "object") return "present";
  return node as string | number | boolean;
}

/**
 * A location's path template without its parameters' names, so that `/transactions/{id}` and
 * `/transactions/{transactionId}` are one place: renaming a path parameter changes no request.
 */
export const place = (location: string) => location.replace(/\{[^}]*\}/g, "{}");

export const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
