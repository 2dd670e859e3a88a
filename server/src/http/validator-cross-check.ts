import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";
import type { ErrorRequestHandler, Request, RequestHandler, Response } from "express";
import { validatorAnswer } from "./errors.js";
import type { OperationMatcher, RouteMatch } from "./operations.js";
import type { CheckedRequest, requestChecks } from "./request-checks.js";
import { validatorFormats } from "./kit/openapi-document.js";

// Development only (`VALIDATE_RESPONSES` on, as everywhere but production): express-openapi-validator
// checks every request beside our own check (`request-checks.ts`) and every response. Each
// request gets both verdicts; when they differ (a request one admits and the other refuses, other
// answers, another coerced query), the request answers 500 and both verdicts are logged. So every
// component test, the contract suites and the fuzzer hold the two equal.

type OurVerdict = { checked: CheckedRequest | null } | { refused: unknown };

interface ReferenceOptions {
  document: Record<string, unknown>;
  checks: ReturnType<typeof requestChecks>;
  matcher: OperationMatcher;
  /** Paths the checks leave alone (outside the document's prefix). */
  ignored: (path: string) => boolean;
  admit: (req: Request, res: Response, checked: CheckedRequest) => void;
}

/** A disagreement between the two checks: a 500 in development, with both verdicts in the log. */
export class ValidatorDisagreement extends Error {
  constructor(
    readonly request: string,
    readonly ours: unknown,
    readonly reference: unknown,
  ) {
    super(`request validators disagree on ${request}`);
    this.name = "ValidatorDisagreement";
  }
}

/** The answer a validation error gets (status, code, message, field errors), to compare two verdicts by. */
function answerOf(error: unknown): unknown {
  const status = (error as { status?: number }).status;
  const answer = validatorAnswer(error as Error);
  const allow = answer?.headers?.Allow;
  // `Allow` lists the path's methods in any order.
  if (answer && allow !== undefined) answer.headers = { Allow: allow.split(", ").sort().join(", ") };
  return { status, answer };
}

export function referenceValidator(options: ReferenceOptions): (RequestHandler | ErrorRequestHandler)[] {
  const { checks, matcher, ignored } = options;
  // Loaded here, by its public entry, so that production (no development checks) never loads it.
  const OpenApiValidator = createRequire(import.meta.url)(
    "express-openapi-validator",
  ) as typeof import("express-openapi-validator");
  const stack = OpenApiValidator.middleware({
    apiSpec: options.document as never,
    validateRequests: { allErrors: true, removeAdditional: false },
    validateResponses: { removeAdditional: false },
    validateSecurity: false,
    validateApiSpec: false,
    validateFormats: true,
    ajvFormats: { mode: "full" },
    formats: validatorFormats,
    ignorePaths: ignored,
    fileUploader: false,
  }) as unknown as RequestHandler[];

  const describe = (req: Request) => `${req.method} ${req.originalUrl}`;
  const verdictOf = (res: Response) => res.locals.ourVerdict as OurVerdict | undefined;

  /** Our verdict, on copies: the reference then reads the request as it came. */
  const ourVerdict: RequestHandler = (req, res, next) => {
    if (ignored(req.path)) return next();
    let verdict: OurVerdict;
    try {
      const copy = {
        method: req.method,
        path: req.path,
        query: { ...(req.query as Record<string, unknown>) },
        headers: { ...req.headers },
        body: req.body === undefined ? undefined : structuredClone(req.body),
      };
      verdict = { checked: checks.check(copy, res.locals.route as RouteMatch | undefined) };
    } catch (refused) {
      verdict = { refused };
    }
    res.locals.ourVerdict = verdict;
    next();
  };

  /** The reference admitted the request (or had no operation for it): so must we have, alike. */
  const agreeOnAdmission: RequestHandler = (req, res, next) => {
    const verdict = verdictOf(res);
    if (!verdict) return next();
    res.locals.ourVerdict = undefined;
    const matched = (req as { openapi?: { schema?: { operationId?: string }; pathParams?: Record<string, string> } })
      .openapi;
    const operationId = matched?.schema?.operationId;
    const reference = { operationId, params: matched?.pathParams, query: { ...(req.query as object) } };
    const checked = "checked" in verdict ? verdict.checked : undefined;
    const same =
      checked === null
        ? operationId === undefined
        : checked !== undefined &&
          checked.operation.id === operationId &&
          isDeepStrictEqual(checked.params, { ...reference.params }) &&
          isDeepStrictEqual({ ...checked.query }, reference.query);
    if (!same) throw new ValidatorDisagreement(describe(req), verdict, reference);
    // The reference's reading of the request stands (it is ours, compared above).
    if (checked) options.admit(req, res, { ...checked, query: req.query as Record<string, unknown> });
    next();
  };

  /** The reference refused the request: so must we have, with the same answer. */
  const agreeOnRefusal: ErrorRequestHandler = (err, req, res, next) => {
    const verdict = verdictOf(res);
    if (!verdict) return next(err);
    res.locals.ourVerdict = undefined;
    let ourAnswer: unknown;
    if ("refused" in verdict) ourAnswer = answerOf(verdict.refused);
    else if (verdict.checked === null) {
      // No operation: the app answers 405 when the path has other methods, 404 otherwise.
      const methods = matcher.methodsFor(req.path);
      ourAnswer = answerOf(
        methods.length > 0 ? { status: 405, headers: { Allow: methods.join(", ") } } : { status: 404 },
      );
    } else ourAnswer = { admitted: verdict.checked.operation.id };
    const referenceAnswer = answerOf(err);
    if (!isDeepStrictEqual(ourAnswer, referenceAnswer)) {
      return next(new ValidatorDisagreement(describe(req), ourAnswer, referenceAnswer));
    }
    next(err);
  };

  return [ourVerdict, ...stack, agreeOnAdmission, agreeOnRefusal];
}
