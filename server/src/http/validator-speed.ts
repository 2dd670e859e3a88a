import { createRequire } from "node:module";

type Compile = (path: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

let installed = false;

/**
 * Two costs of express-openapi-validator 5.6 (pinned) that buy nothing here, removed by replacing
 * functions of its modules before the first validator is built. Validation itself is unchanged.
 */
export function tuneValidator(): void {
  if (installed) return;
  installed = true;
  const fromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
  memoiseRouteCompilation(fromValidator);
  lazyMetaSchema(fromValidator);
  resolveReferencesWithoutCompiling(fromValidator);
  skipBundlingSelfContainedDocuments(fromValidator);
}

/**
 * The validator first "bundles" the document with json-schema-ref-parser, which crawls every node
 * to gather external references into the document: a tenth of a second of the start-up for ours,
 * whose references are all local (`#/components/…`), and whose bundle is the document unchanged.
 * A document given as an object whose every `$ref` is a local pointer that resolves is taken as
 * it is; any other (a file path, an external or dangling reference) is bundled as before.
 */
function skipBundlingSelfContainedDocuments(fromValidator: NodeJS.Require): void {
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
function resolveReferencesWithoutCompiling(fromValidator: NodeJS.Require): void {
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
function lazyMetaSchema(fromValidator: NodeJS.Require): void {
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
function memoiseRouteCompilation(fromValidator: NodeJS.Require): void {
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
