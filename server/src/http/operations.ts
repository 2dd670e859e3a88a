import { type OperationId, type OperationMeta, operationTable } from "../../../generated/operations.js";

export interface OperationMatch {
  id: OperationId;
  meta: OperationMeta;
}

const compiled = (Object.entries(operationTable) as [OperationId, OperationMeta][]).map(([id, meta]) => ({
  id,
  meta,
  pattern: new RegExp(`^${meta.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
}));

/** The contract operation a request is for, by method and path. */
export function matchOperation(method: string, path: string): OperationMatch | null {
  const m = method.toLowerCase();
  const found = compiled.find((c) => c.meta.method === m && c.pattern.test(path));
  return found ? { id: found.id, meta: found.meta } : null;
}

/** The methods the contract has for this path (empty: unknown path, 404 rather than 405). */
export function methodsFor(path: string): string[] {
  return compiled.filter((c) => c.pattern.test(path)).map((c) => c.meta.method.toUpperCase());
}
