import type { RequestHandler } from "express";
import { fieldError } from "../domain/core/errors.js";
import { requestLimits } from "../domain/core/policy.js";

declare global {
  // ES2024, in Node 20; the project's lib is ES2023.
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

/** The deepest nesting of objects and arrays a request body may have (the body itself is level 1). */
const { maxJsonDepth } = requestLimits;

/** What is wrong with one place of a request's data. */
interface UnsafeInput {
  path: string;
  message: string;
}

const nulMessage = "não pode conter o caractere nulo (\\u0000)";
const unicodeMessage = "contém Unicode malformado (surrogate UTF-16 sem par)";
const depthMessage = `aninhamento de objetos e listas passa de ${maxJsonDepth} níveis`;

/** A key as it can be shown in a field path: NUL escaped, lone surrogates replaced. */
const printable = (key: string) => key.split("\u0000").join("\\u0000").toWellFormed();

function stringProblem(text: string): string | null {
  if (text.includes("\u0000")) return nulMessage;
  if (!text.isWellFormed()) return unicodeMessage;
  return null;
}

/**
 * The first place of `value` (a parsed JSON body or query) that no store can keep faithfully: a
 * string or key holding NUL (PostgreSQL text and jsonb refuse it) or an unpaired UTF-16 surrogate
 * (not Unicode: PostgreSQL refuses it, JSON re-encoding replaces it), or nesting deeper than
 * `maxJsonDepth`. Walks with an explicit stack, so no input can overflow the call stack.
 */
function findUnsafeInput(value: unknown, root = "body"): UnsafeInput | null {
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value, path: [], depth: 1 }];
  const name = (path: string[]) => path.join(".") || root;
  while (stack.length > 0) {
    const { value: item, path, depth } = stack.pop()!;
    if (typeof item === "string") {
      const problem = stringProblem(item);
      if (problem) return { path: name(path), message: problem };
      continue;
    }
    if (item === null || typeof item !== "object") continue;
    if (depth > maxJsonDepth) return { path: name(path), message: depthMessage };
    const entries: [string, unknown][] = Array.isArray(item)
      ? item.map((v, i) => [String(i), v])
      : Object.entries(item as Record<string, unknown>);
    // Pushed in reverse so the first field is looked at first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push({ value: child, path: [...path, key], depth: depth + 1 });
    }
    for (const [key] of entries) {
      const problem = Array.isArray(item) ? null : stringProblem(key);
      if (problem) return { path: name([...path, printable(key)]), message: problem };
    }
  }
  return null;
}

/** True when a path parameter cannot be an id of anything stored (NUL or malformed Unicode). */
export const isUnstorableText = (text: string): boolean => stringProblem(text) !== null;

/**
 * Refuses query values and bodies holding NUL, malformed Unicode or nesting deeper than
 * `maxJsonDepth` with `400 VALIDATION_ERROR` naming the field: no field of the API needs them, and
 * the stores could not keep them faithfully.
 */
export const refuseUnsafeInput: RequestHandler = (req, _res, next) => {
  const found = findUnsafeInput(req.query, "query") ?? findUnsafeInput(req.body);
  if (found !== null) throw fieldError(found.path, found.message);
  next();
};
