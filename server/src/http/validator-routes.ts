import { createRequire } from "node:module";

type Compile = (path: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

let installed = false;

/**
 * express-openapi-validator (5.6) finds a request's route by compiling every route of the document
 * to a regular expression with path-to-regexp, on every request: a tenth of the server's time
 * under load in a profile. The compiled form depends only on the route and the routing options, so
 * this memoises path-to-regexp's `pathToRegexp` for the calls the validator makes (options no more
 * than `sensitive` and `strict`; any other call goes to the original). The regular expressions have
 * no `g` flag, so sharing one between requests is safe. Installed once, before the validator runs.
 */
export function memoiseValidatorRouteCompilation(): void {
  if (installed) return;
  installed = true;
  const fromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
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
