import { type OperationId, type OperationMeta, operationTable } from "../../../generated/operations.js";

/** A request's operation: its id and generated metadata. */
export interface OperationMatch<Id extends string = OperationId> {
  id: Id;
  meta: OperationMeta;
}

/** A request's operation, with its path parameters as the URL spells them (still percent-encoded). */
export interface RouteMatch<Id extends string = string> extends OperationMatch<Id> {
  rawParams: Record<string, string>;
}

/** Finds the operation of a request in one generated table: the one route lookup of the request path. */
export interface OperationMatcher<Id extends string = string> {
  /** The operation of this method and path, or null. */
  match(method: string, path: string): RouteMatch<Id> | null;
  /** The methods the contract has for this path (empty: unknown path, 404 rather than 405). */
  methodsFor(path: string): string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&");

/**
 * The matcher of a generated operation table. A path parameter (`{id}`) matches one non-empty
 * segment, as Express's `:id` does; routes are compared exactly (case-sensitive, no trailing slash),
 * as the app's strict routing has them.
 */
export function operationMatcher<Id extends string>(table: Record<Id, OperationMeta>): OperationMatcher<Id> {
  const routes = (Object.entries(table) as [Id, OperationMeta][]).map(([id, meta]) => {
    const names: string[] = [];
    const source = meta.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return escapeRegExp(part);
        names.push(name);
        return "([^/]+)";
      })
      .join("");
    return { id, meta, names, pattern: new RegExp(`^${source}$`) };
  });
  return {
    match(method, path) {
      const m = method.toLowerCase();
      for (const route of routes) {
        if (route.meta.method !== m) continue;
        const found = route.pattern.exec(path);
        if (!found) continue;
        const rawParams: Record<string, string> = {};
        route.names.forEach((name, i) => {
          rawParams[name] = found[i + 1] as string;
        });
        return { id: route.id, meta: route.meta, rawParams };
      }
      return null;
    },
    methodsFor(path) {
      return routes.filter((r) => r.pattern.test(path)).map((r) => r.meta.method.toUpperCase());
    },
  };
}

/** The public API's operations. */
export const publicOperations = operationMatcher(operationTable);

/** The contract operation a public request is for, by method and path. */
export function matchOperation(method: string, path: string): RouteMatch<OperationId> | null {
  return publicOperations.match(method, path);
}

/** The methods the public contract has for this path (empty: unknown path, 404 rather than 405). */
export function methodsFor(path: string): string[] {
  return publicOperations.methodsFor(path);
}
