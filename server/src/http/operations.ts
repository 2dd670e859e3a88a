import { type OperationId, type OperationMeta, operationTable } from "../../../generated/operations.js";

export interface OperationMatch {
  id: OperationId;
  meta: OperationMeta;
}

const compiled = (Object.entries(operationTable) as [OperationId, OperationMeta][]).map(([id, meta]) => ({
  id,
  meta,
  pattern: new RegExp(`^${meta.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}/?$`),
}));

/** The contract operation a request is for, by method and path. */
export function matchOperation(method: string, path: string): OperationMatch | null {
  const m = method.toLowerCase();
  const found = compiled.find((c) => c.meta.method === m && c.pattern.test(path));
  return found ? { id: found.id, meta: found.meta } : null;
}

/** Whether any operation has this path (with another method): 405 rather than 404. */
export function pathKnown(path: string): boolean {
  return compiled.some((c) => c.pattern.test(path));
}
