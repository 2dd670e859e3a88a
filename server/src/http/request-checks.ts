import type { ErrorObject } from "ajv";
import type { OperationValidators } from "../../../generated/request-validators.js";
import { DomainError, fieldError } from "../domain/core/errors.js";
import { maxFieldErrors } from "../domain/core/policy.js";
import type { OperationMatcher, RouteMatch } from "./operations.js";
import {
  emptyQueryParameterMessage,
  fieldErrorsOf,
  unknownQueryParameterMessage,
  validationPath,
} from "./kit/validation-messages.js";

// The request check of every API document: the operation of a request found once (the generated
// table's matcher), then its path parameters, query, headers and body checked by the validators
// generated from the operation's schemas (`generated/*request-validators.ts`, Ajv standalone code
// written by `npm run generate`). The document and the seed's error body are the reference: each
// field error is built from Ajv's structured error (keyword, params, path), in Portuguese.
// express-openapi-validator is held to agree on every verdict by a differential test
// (server/test/http/request-validation-differential.test.ts), not on every request;
// docs/decisions/0049-request-validation-owned-and-generated.md.

/** What a request that passed its checks carries on to its handler. */
export interface CheckedRequest<Id extends string = string> {
  operation: RouteMatch<Id>;
  params: Record<string, string>;
  query: Record<string, unknown>;
}

/** The media type of a `content-type` header, lower case, without parameters. */
function mediaType(header: string | undefined): string | null {
  if (!header) return null;
  return header.split(";")[0]?.toLowerCase().trim() ?? null;
}

const malformedPath = () => fieldError("path", "o caminho da URL tem uma codificação percentual (%) inválida");

/**
 * The request checks of one OpenAPI document, from its generated validators: `check` finds the
 * request's operation and checks it (throwing a `DomainError`: 400 `VALIDATION_ERROR` with one
 * item per field, or 415), or answers null when no operation of the document has this method and
 * path.
 */
export function requestChecks<Id extends string>(
  validators: Readonly<Record<string, OperationValidators>>,
  matcher: OperationMatcher<Id>,
) {
  const validatorsOf = (operation: RouteMatch<Id>): OperationValidators => {
    const found = validators[operation.id];
    if (!found) throw new Error(`no generated request validators for ${operation.id}`);
    return found;
  };
  const declared = new Map<string, Set<string>>();
  const queryNamesOf = (operation: RouteMatch<Id>): Set<string> => {
    let names = declared.get(operation.id);
    if (!names) {
      names = new Set(validatorsOf(operation).query);
      declared.set(operation.id, names);
    }
    return names;
  };

  return {
    /**
     * Refuses (`400 VALIDATION_ERROR`, one item naming it as sent) the first query parameter the
     * request's operation does not declare, by its raw name: `a[b]`, `__proto__[x]`, `constructor`
     * and the empty name are refused as they are (no document declares an object or `deepObject`
     * query parameter, so brackets are never read); run first, so the check never reads such a
     * query; docs/decisions/0042-unknown-query-parameters-and-a-newcomers-first-hour.md.
     */
    refuseUndeclaredQuery(req: { method: string; path: string; query: unknown }, found?: RouteMatch<Id>): void {
      const operation = found ?? matcher.match(req.method, req.path);
      if (!operation) return;
      const names = queryNamesOf(operation);
      for (const name of Object.keys(req.query as Record<string, unknown>)) {
        if (!names.has(name)) throw fieldError(name, unknownQueryParameterMessage);
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
          throw malformedPath();
        }
      }
      const checks = validatorsOf(operation);
      // The body's media type first: a body of another type is not read at all.
      let checkBody = checks.body !== null;
      if (checkBody) {
        const type = mediaType(req.headers["content-type"] as string | undefined);
        if (type === null && !checks.bodyRequired) checkBody = false;
        else if (type !== "application/json") throw new DomainError("UNSUPPORTED_MEDIA_TYPE");
      }
      const query = { ...(req.query as Record<string, unknown>) };
      const names = queryNamesOf(operation);
      for (const name of Object.keys(query)) {
        if (!names.has(name)) throw fieldError(name, unknownQueryParameterMessage);
        if (query[name] === "") throw fieldError(name, emptyQueryParameterMessage);
      }
      const data = { query, headers: req.headers, params };
      const errors: { error: ErrorObject; path: string }[] = [];
      if (!checks.parameters(data)) {
        // `/query/limit` → `limit`: the parameter's name, wherever it is.
        for (const error of checks.parameters.errors ?? []) errors.push({ error, path: validationPath(error, 1) });
      }
      if (checkBody && checks.body) {
        if (req.body === undefined) {
          if (checks.bodyRequired) errors.push({ error: missingBody, path: "body" });
        } else if (!checks.body(req.body)) {
          for (const error of checks.body.errors ?? []) errors.push({ error, path: validationPath(error) });
        }
      }
      if (errors.length > 0) {
        throw new DomainError("VALIDATION_ERROR", "Dados inválidos.", {
          errors: fieldErrorsOf(errors, maxFieldErrors),
        });
      }
      return { operation, params, query };
    },
  };
}

/** A required body that was not sent, told as Ajv tells a missing property. */
const missingBody: ErrorObject = {
  keyword: "required",
  instancePath: "",
  schemaPath: "#/required",
  params: { missingProperty: "body" },
};
