import AjvDraft04 from "ajv-draft-04";
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { parse as parseQueryString } from "qs";
import type { OperationMeta } from "../../../generated/operations.js";
import { fieldError } from "../domain/core/errors.js";
import { malformedUriMessage } from "./errors.js";
import type { OperationMatcher, RouteMatch } from "./operations.js";
import { validatorFormats } from "./kit/openapi-document.js";
import { unknownQueryParameterMessage } from "./kit/validation-messages.js";

// The request check of every API document: the operation of a request found once (the generated
// table's matcher), then its path parameters, query, headers and body checked with Ajv against
// the operation's schemas in the OpenAPI document. The rules are express-openapi-validator
// 5.6.2's, the reference this check is held equal to: in development every request is checked by
// both and a disagreement is a 500 (`validator-cross-check.ts`);
// docs/decisions/0015-request-validation-through-public-surfaces.md. Only public APIs of Ajv, ajv-formats and qs are used.

type Node = Record<string, unknown>;

/** A refused request, in the shape the error middleware reads (`status`, `errors`, `headers`). */
class RequestRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: { path: string; message: string; errorCode?: string }[],
  ) {
    super(message);
    this.name = "RequestRefusal";
  }
}

/** What a request that passed its checks carries on to its handler. */
export interface CheckedRequest<Id extends string = string> {
  operation: RouteMatch<Id>;
  params: Record<string, string>;
  query: Record<string, unknown>;
}

interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Node;
  $ref?: string;
}

interface Compiled {
  general: ValidateFunction;
  body: ValidateFunction | null;
  bodyRequired: boolean;
  queryNames: Set<string>;
  /** Query parameters whose schema is a reference or an object: a JSON text in them is parsed first. */
  jsonQueryNames: Set<string>;
}

const parameterField = { query: "query", header: "headers", path: "params", cookie: "cookies" } as const;

/** Ajv as the reference builds it for an OpenAPI 3.0 document: draft-04, with the formats it knows. */
function makeAjv(coerceTypes: boolean): AjvDraft04.default {
  const options: Options = {
    strict: false,
    strictNumbers: true,
    strictTuples: true,
    allowUnionTypes: false,
    validateSchema: false,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    validateFormats: true,
    allErrors: true,
  };
  const ajv = new AjvDraft04.default(options);
  addFormats.default(ajv, { mode: "full" });
  for (const [name, format] of Object.entries(validatorFormats)) ajv.addFormat(name, format);
  return ajv;
}

/** The media type of a `content-type` header, lower case, without parameters. */
function mediaType(header: string | undefined): string | null {
  if (!header) return null;
  return header.split(";")[0]?.toLowerCase().trim() ?? null;
}

/** Keys spelled with brackets (`a[b]=1`) become nested objects under their first name, as qs reads them. */
function nestBracketKeys(query: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(query)) {
    if (!key.includes("[")) continue;
    const base = key.split("[")[0] as string;
    const parsed = parseQueryString(`${key}=${String(query[key])}`) as Record<string, unknown>;
    const value = parsed[base];
    if (value !== undefined) {
      const current = query[base];
      query[base] =
        current && typeof current === "object" && typeof value === "object" && !Array.isArray(value)
          ? { ...current, ...value }
          : value;
    }
    delete query[key];
  }
  return query;
}

/**
 * The request checks of one OpenAPI document: `check` finds the request's operation and checks it
 * (throwing a `RequestRefusal`), or answers null when no operation of the document has this
 * method and path. Each operation's validators are compiled at its first request.
 */
export function requestChecks<Id extends string>(document: Node, matcher: OperationMatcher<Id>) {
  const general = makeAjv(true);
  const bodies = makeAjv(false);
  const components = document.components as Node | undefined;
  const paths = document.paths as Record<string, Record<string, Node>>;
  const compiled = new Map<string, Compiled>();

  const parameterOf = (p: ParameterObject): ParameterObject => {
    if (!p.$ref) return p;
    const name = p.$ref.replace(/^.+\//, "");
    return (components?.parameters as Record<string, ParameterObject>)[name] as ParameterObject;
  };

  /** A schema's own `$ref` to a component, resolved once. */
  const resolved = (schema: Node): Node => {
    const ref = schema.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return schema;
    return ((components?.schemas as Record<string, Node> | undefined)?.[ref.slice("#/components/schemas/".length)] ??
      schema) as Node;
  };

  function compile(meta: OperationMeta): Compiled {
    const operation = paths[meta.path]?.[meta.method] ?? {};
    const schemas: Record<string, Node> = { query: {}, headers: {}, params: {}, cookies: {} };
    const queryNames = new Set<string>();
    const jsonQueryNames = new Set<string>();
    for (const raw of (operation.parameters as ParameterObject[] | undefined) ?? []) {
      const parameter = parameterOf(raw);
      const field = parameterField[parameter.in];
      const name = parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name;
      const schema = parameter.schema ?? {};
      const target = schemas[field] as Node;
      target.type = "object";
      target.properties = { ...(target.properties as Node | undefined), [name]: schema };
      if (parameter.required) target.required = [...((target.required as string[] | undefined) ?? []), name];
      if (parameter.in === "query") {
        queryNames.add(name);
        const isObject = (s: Node | undefined): boolean =>
          !!s &&
          (s.$ref !== undefined ||
            s.type === "object" ||
            ["allOf", "oneOf", "anyOf"].some((k) => (s[k] as Node[] | undefined)?.some(isObject)));
        // As the reference reads it: a parameter's `$ref` is resolved first, so a reference to a
        // string schema is a string, and only an object (or a composition naming one) is JSON.
        if (isObject(resolved(schema))) jsonQueryNames.add(name);
      }
    }
    const generalSchema = {
      components,
      required: ["query", "headers", "params"],
      properties: { ...schemas, body: {} },
    };
    const requestBody = operation.requestBody as
      { required?: boolean; content?: Record<string, { schema?: Node }> } | undefined;
    const bodySchema = requestBody?.content?.["application/json"]?.schema;
    return {
      general: general.compile(generalSchema),
      body: requestBody?.content
        ? bodies.compile({
            components,
            properties: { query: {}, headers: {}, params: {}, cookies: {}, body: bodySchema ?? {} },
            ...(requestBody.required ? { required: ["body"] } : {}),
          })
        : null,
      bodyRequired: requestBody?.required === true,
      queryNames,
      jsonQueryNames,
    };
  }

  const compiledFor = (operation: RouteMatch<Id>): Compiled => {
    let checks = compiled.get(operation.id);
    if (!checks) {
      checks = compile(operation.meta);
      compiled.set(operation.id, checks);
    }
    return checks;
  };

  return {
    /**
     * Refuses (`400 VALIDATION_ERROR`, one item naming it as sent) the first query parameter the
     * request's operation does not declare, by its raw name: `a[b]`, `__proto__[x]`, `constructor`
     * and the empty name are refused as they are, before any reading of brackets. Run first, in
     * every mode, so neither check (nor the development cross-check) ever reads such a query;
     * docs/decisions/0042-unknown-query-parameters-and-a-newcomers-first-hour.md.
     */
    refuseUndeclaredQuery(req: { method: string; path: string; query: unknown }, found?: RouteMatch<Id>): void {
      const operation = found ?? matcher.match(req.method, req.path);
      if (!operation) return;
      const { queryNames, jsonQueryNames } = compiledFor(operation);
      for (const name of Object.keys(req.query as Record<string, unknown>)) {
        if (queryNames.has(name)) continue;
        // `filter[a]=1` of a declared object parameter `filter` (none today) is read by brackets.
        const bracket = name.indexOf("[");
        if (bracket > 0 && jsonQueryNames.has(name.slice(0, bracket))) continue;
        throw fieldError(name, unknownQueryParameterMessage);
      }
    },

    /** `found`: the request's route when an earlier step already matched it (authentication). */
    check(
      req: {
        method: string;
        path: string;
        query: unknown;
        headers: Record<string, unknown>;
        body: unknown;
      },
      found?: RouteMatch<Id>,
    ): CheckedRequest<Id> | null {
      const operation = found ?? matcher.match(req.method, req.path);
      if (!operation) return null;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(operation.rawParams)) {
        try {
          params[name] = decodeURIComponent(value);
        } catch {
          throw new RequestRefusal(400, malformedUriMessage, [{ path: req.path, message: malformedUriMessage }]);
        }
      }
      const checks = compiledFor(operation);
      // The body's media type first: the reference settles it before anything else of the request.
      let checkBody = checks.body !== null;
      if (checkBody) {
        const type = mediaType(req.headers["content-type"] as string | undefined);
        if (type === null && !checks.bodyRequired) checkBody = false;
        else if (type !== "application/json") {
          throw new RequestRefusal(415, type === null ? "media type not specified" : `unsupported media type ${type}`);
        }
      }
      const query = nestBracketKeys({ ...(req.query as Record<string, unknown>) });
      for (const name of checks.jsonQueryNames) {
        const value = query[name];
        if (!value) continue;
        try {
          query[name] = JSON.parse(value as string);
        } catch {
          // Not JSON: checked as it is.
        }
      }
      for (const name of Object.keys(query)) {
        if (!checks.queryNames.has(name)) {
          const message = `Unknown query parameter '${name}'`;
          throw new RequestRefusal(400, message, [{ path: `/query/${name}`, message }]);
        }
        if (query[name] === "") {
          const message = `Empty value found for query parameter '${name}'`;
          throw new RequestRefusal(400, message, [{ path: `/query/${name}`, message }]);
        }
      }
      const data = { query, headers: req.headers, params, body: req.body };
      const valid = checks.general(data);
      const validBody = checkBody && checks.body ? checks.body(data) : true;
      if (!valid || !validBody) {
        const errors = [...(checks.general.errors ?? []), ...((checkBody ? checks.body?.errors : null) ?? [])];
        throw new RequestRefusal(400, "request validation failed", errors.map(errorItem));
      }
      return { operation, params, query };
    },
  };
}

/** One Ajv error as the reference reports it: the path of the missing or extra property, or of the value. */
function errorItem(e: ErrorObject): { path: string; message: string; errorCode: string } {
  const params = e.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
  // Spelled as the reference spells it: an empty property name ("") names the value's own path "".
  const required = params.missingProperty && `${e.instancePath}/${params.missingProperty}`;
  const additional = params.additionalProperty && `${e.instancePath}/${params.additionalProperty}`;
  const path = required ?? additional ?? e.instancePath;
  const message =
    e.keyword === "enum" && params.allowedValues
      ? `${e.message ?? ""}: ${params.allowedValues.join(", ")}`
      : (e.message ?? "");
  return { path, message, errorCode: `${e.keyword}.openapi.validation` };
}
