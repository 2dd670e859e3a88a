import { createRequire } from "node:module";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { malformedUriMessage } from "./errors.js";

type Compile = (path: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

let installed = false;

/** `require` as seen from express-openapi-validator: its own modules, and the copies it loads. */
const fromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));

/**
 * Whether the installed express-openapi-validator is the version whose internals the changes
 * that replace, rather than wrap, were written against.
 */
function isTunedVersion(): boolean {
  try {
    return (fromValidator("express-openapi-validator/package.json") as { version?: string }).version === "5.6.2";
  } catch {
    return false;
  }
}

/**
 * Costs of express-openapi-validator 5.6 (pinned) that buy nothing here, removed by replacing
 * functions of its modules before the first validator is built. Validation itself is unchanged.
 */
export function tuneValidator(): void {
  if (installed) return;
  installed = true;
  memoiseRouteCompilation();
  precompiledRouteLookup();
  lazyMetaSchema();
  resolveReferencesWithoutCompiling();
  skipBundlingSelfContainedDocuments();
}

/**
 * The validator first "bundles" the document with json-schema-ref-parser, which crawls every node
 * to gather external references into the document: a tenth of a second of the start-up for ours,
 * whose references are all local (`#/components/…`), and whose bundle is the document unchanged.
 * A document given as an object whose every `$ref` is a local pointer that resolves is taken as
 * it is; any other (a file path, an external or dangling reference) is bundled as before.
 */
function skipBundlingSelfContainedDocuments(): void {
  type LoadSpec = (this: unknown, spec: unknown, refParser?: unknown) => Promise<unknown>;
  let module: { OpenAPIFramework?: { prototype: { loadSpec?: LoadSpec } } };
  try {
    module = fromValidator("express-openapi-validator/dist/framework/index.js") as typeof module;
  } catch {
    return;
  }
  const prototype = module.OpenAPIFramework?.prototype;
  const original = prototype?.loadSpec;
  if (!prototype || typeof original !== "function") return;
  prototype.loadSpec = function (this: unknown, spec: unknown, refParser?: unknown) {
    const mode = (refParser as { mode?: unknown } | undefined)?.mode;
    if ((mode === undefined || mode === "bundle") && isSelfContained(spec)) return Promise.resolve(spec);
    return original.call(this, spec, refParser);
  };
}

/** Whether `document` is an object in which every `$ref` is a `#/…` pointer to a node of it. */
function isSelfContained(document: unknown): boolean {
  if (document === null || typeof document !== "object") return false;
  const resolves = (ref: string): boolean => {
    if (!ref.startsWith("#/")) return false;
    let node: unknown = document;
    for (const raw of ref.slice(2).split("/")) {
      let key: string;
      try {
        key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      } catch {
        return false;
      }
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return false;
      node = (node as Record<string, unknown>)[key];
    }
    return true;
  };
  const stack: unknown[] = [document];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    const ref = (node as { $ref?: unknown }).$ref;
    if (ref !== undefined && (typeof ref !== "string" || !resolves(ref))) return false;
    stack.push(...Object.values(node));
  }
  return true;
}

/**
 * Before the first request, the validator's schema preprocessor looks up each `$ref` it meets
 * (`#/components/schemas/X`) with Ajv's `getSchema`, which compiles the whole referenced schema
 * only to read back the object it was given, and then drops that Ajv instance: most of the
 * validator's start-up in a profile, run in the first tick after `listen`. The schemas of the
 * document are registered under exactly those keys, so this reads the registered object instead.
 * Any other reference takes the original path. Left alone if the module does not have the expected
 * shape.
 */
function resolveReferencesWithoutCompiling(): void {
  type Registered = { schemas?: Record<string, unknown> };
  type Preprocessor = { ajv?: Registered; resolvedSchemaCache?: Map<string, unknown> };
  type Resolve = (this: Preprocessor, schema: unknown) => unknown;
  let module: { SchemaPreprocessor?: { prototype: { resolveSchema?: Resolve } } };
  try {
    module = fromValidator(
      "express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js",
    ) as typeof module;
  } catch {
    return;
  }
  const prototype = module.SchemaPreprocessor?.prototype;
  const original = prototype?.resolveSchema;
  if (!prototype || typeof original !== "function") return;
  prototype.resolveSchema = function (this: Preprocessor, schema: unknown) {
    const ref = (schema as { $ref?: unknown } | null | undefined)?.$ref;
    const cache = this.resolvedSchemaCache;
    if (typeof ref !== "string" || !(cache instanceof Map) || cache.has(ref)) return original.call(this, schema);
    const registered = this.ajv?.schemas?.[ref] as { schema?: unknown } | undefined;
    if (!registered || typeof registered !== "object" || registered.schema === undefined) {
      return original.call(this, schema);
    }
    cache.set(ref, registered.schema);
    return registered.schema;
  };
}

/**
 * With `validateApiSpec: false` the validator still compiles the whole OpenAPI 3 meta-schema
 * (about a quarter of the start-up) and never uses it. This compiles it only if `validate` is
 * ever called. Left alone if the module does not have the expected shape.
 */
function lazyMetaSchema(): void {
  type Validator = { validate(doc: unknown): { errors: unknown[] } };
  type ValidatorClass = new (options: { version: string; validateApiSpec: boolean }) => Validator;
  let module: { OpenAPISchemaValidator?: ValidatorClass };
  try {
    module = fromValidator("express-openapi-validator/dist/framework/openapi.schema.validator.js") as typeof module;
  } catch {
    return;
  }
  const found = module.OpenAPISchemaValidator;
  if (typeof found !== "function") return;
  const Eager: ValidatorClass = found;
  module.OpenAPISchemaValidator = class LazyOpenAPISchemaValidator {
    private compiled: Validator | null = null;
    constructor(private readonly options: { version: string; validateApiSpec: boolean }) {
      if (options.validateApiSpec) this.compiled = new Eager(options);
    }
    validate(doc: unknown) {
      this.compiled ??= new Eager(this.options);
      return this.compiled.validate(doc);
    }
  };
}

/**
 * express-openapi-validator finds a request's route by compiling every route of the document
 * to a regular expression with path-to-regexp, on every request: a tenth of the server's time
 * under load in a profile. The compiled form depends only on the route and the routing options, so
 * this memoises path-to-regexp's `pathToRegexp` for the calls the validator makes (options no more
 * than `sensitive` and `strict`; any other call goes to the original). The regular expressions have
 * no `g` flag, so sharing one between requests is safe.
 */
function memoiseRouteCompilation(): void {
  const module = fromValidator("path-to-regexp") as { pathToRegexp: Compile };
  const original = module.pathToRegexp;
  const cache = new Map<string, ReturnType<Compile>>();
  module.pathToRegexp = (path, options) => {
    const keys = options ? Object.keys(options) : [];
    if (typeof path !== "string" || keys.some((k) => k !== "sensitive" && k !== "strict")) {
      return original(path, options);
    }
    const key = `${options?.sensitive ? 1 : 0}${options?.strict ? 1 : 0}${path}`;
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = original(path, options);
      if (compiled.regexp.global || compiled.regexp.sticky) return compiled;
      cache.set(key, compiled);
    }
    return compiled;
  };
}

type RouteSchemas = Record<string, unknown> & { basePath: string; _openApiRoute: string };
interface OpenApiContext {
  apiDoc: { paths: Record<string, Record<string, unknown>> };
  expressRouteMap: Record<string, RouteSchemas>;
  openApiRouteMap: Record<string, Record<string, unknown>>;
  useRequestUrl: boolean;
  ignoreUndocumented: boolean;
  serial: number;
  shouldIgnoreRoute(path: string): boolean;
  isManagedRoute(path: string): boolean;
}
type HttpErrorClass = new (options: { path: string; message: string; headers?: Record<string, string> }) => Error;
type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The validator's first middleware finds the document's route for each request by walking every
 * route: an `Object.entries` of the route map, a route-pair lookup, a substring, two app settings
 * and a path-to-regexp call per route, per request (a twentieth of a list's time). This is the
 * same middleware (express-openapi-validator 5.6.2's `applyOpenApiMetadata`, same order, same
 * matches, same errors) with the routes compiled once per routing mode. Only installed on that
 * exact version, since it replaces the function rather than wrapping it.
 */
function precompiledRouteLookup(): void {
  let metadata: { applyOpenApiMetadata?: unknown };
  let types: { MethodNotAllowed?: HttpErrorClass; NotFound?: HttpErrorClass; BadRequest?: HttpErrorClass };
  let compile: Compile;
  let httpMethods: Set<string>;
  if (!isTunedVersion()) return;
  try {
    metadata = fromValidator("express-openapi-validator/dist/middlewares/openapi.metadata.js") as typeof metadata;
    types = fromValidator("express-openapi-validator/dist/framework/types.js") as typeof types;
    compile = (fromValidator("path-to-regexp") as { pathToRegexp: Compile }).pathToRegexp;
    httpMethods = (
      fromValidator("express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js") as {
        httpMethods: Set<string>;
      }
    ).httpMethods;
  } catch {
    return;
  }
  const { MethodNotAllowed, NotFound, BadRequest } = types;
  if (typeof metadata.applyOpenApiMetadata !== "function" || !MethodNotAllowed || !NotFound || !BadRequest) return;
  if (!(httpMethods instanceof Set)) return;

  metadata.applyOpenApiMetadata = function applyOpenApiMetadata(
    context: OpenApiContext,
    responseApiDoc?: { paths: Record<string, Record<string, unknown>> },
  ): Middleware {
    type Compiled = {
      expressRoute: string;
      openApiRoute: string;
      pathKey: string;
      regexp: RegExp;
      keys: string[];
    };
    const byMode = new Map<string, Compiled[]>();
    const routesFor = (strict: boolean, sensitive: boolean): Compiled[] => {
      const mode = `${strict ? 1 : 0}${sensitive ? 1 : 0}`;
      let routes = byMode.get(mode);
      if (!routes) {
        routes = Object.entries(context.expressRouteMap).map(([expressRoute, methods]) => {
          const { regexp, keys } = compile(expressRoute, { sensitive, strict });
          return {
            expressRoute,
            openApiRoute: methods._openApiRoute,
            pathKey: methods._openApiRoute.substring(methods.basePath.length),
            regexp,
            keys: keys.map((k) => (k as { name: string }).name),
          };
        });
        byMode.set(mode, routes);
      }
      return routes;
    };
    const lookupRoute = (req: Request) => {
      const path = (context.useRequestUrl ? req.url : req.originalUrl).split("?")[0] ?? "";
      const method = req.method.toLowerCase();
      const routes = routesFor(req.app.enabled("strict routing"), req.app.enabled("case sensitive routing"));
      for (const route of routes) {
        const found = route.regexp.exec(path);
        if (!found) continue;
        let values: string[];
        try {
          values = found.slice(1).map(decodeURIComponent);
        } catch {
          throw new BadRequest({ path: req.path, message: malformedUriMessage });
        }
        const pathParams: Record<string, string> = {};
        route.keys.forEach((key, i) => {
          pathParams[key] = values[i] as string;
        });
        return {
          schema: context.apiDoc.paths[route.pathKey]?.[method],
          _responseSchema: responseApiDoc?.paths[route.pathKey]?.[method],
          expressRoute: route.expressRoute,
          openApiRoute: route.openApiRoute,
          pathParams,
        };
      }
      return null;
    };
    return (req, _res, next) => {
      const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
      if (context.shouldIgnoreRoute(path)) return next();
      const matched = lookupRoute(req);
      if (matched) {
        const { expressRoute, openApiRoute, pathParams, schema } = matched;
        if (!schema) {
          if (context.ignoreUndocumented) return next();
          throw new MethodNotAllowed({
            path: req.path,
            message: `${req.method} method not allowed`,
            headers: {
              Allow: Object.keys(context.openApiRouteMap[openApiRoute] ?? {})
                .filter((key) => httpMethods.has(key.toLowerCase()))
                .join(", "),
            },
          });
        }
        const openapi: Record<string, unknown> = {
          expressRoute,
          openApiRoute,
          pathParams,
          schema,
          serial: context.serial,
        };
        (req as unknown as { openapi: unknown }).openapi = openapi;
        req.params = pathParams;
        if (responseApiDoc) openapi._responseSchema = matched._responseSchema;
      } else if (context.isManagedRoute(path) && !context.ignoreUndocumented) {
        throw new NotFound({ path: req.path, message: "not found" });
      }
      next();
    };
  };
}

/**
 * The validator's middlewares, less two that pass every request on after a promise turn each:
 * the security check (off here: `authenticate` checks keys) and, once it has run, the one that
 * registers the path parameters on the app at the first request. Each step of the validator
 * waits on its loaded document with a `then`; the two left (route lookup and request check) keep
 * theirs. Only on express-openapi-validator 5.6.2, whose steps these are by name; any other
 * version gets its stack unchanged.
 */
export function leanValidatorStack(stack: RequestHandler[]): RequestHandler[] {
  if (!isTunedVersion()) return stack;
  return stack
    .filter((step) => step.name !== "securityMiddleware")
    .map((step) => (step.name === "pathParamsMiddleware" ? untilItHasRun(step) : step));
}

/** `step` until one call of it has passed the request on; after that, straight to `next`. */
function untilItHasRun(step: RequestHandler): RequestHandler {
  let done = false;
  return (req, res, next) => {
    if (done) return next();
    return step(req, res, (error?: unknown) => {
      if (error === undefined) done = true;
      next(error);
    });
  };
}
