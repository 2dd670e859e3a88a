import type { RequestHandler } from "express";
import { fieldError } from "../domain/errors.js";

/** The path of the first string (value or key) holding a NUL character, or null. */
export function findNul(value: unknown, path: string[] = []): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path.join(".") || "body" : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\u0000")) return [...path, key.split("\u0000").join("\\u0000")].join(".");
      const found = findNul(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * Refuses the NUL character in bodies and query values with `400 VALIDATION_ERROR` naming the
 * field: PostgreSQL text and jsonb cannot store it, and no field of the API needs it.
 */
export const refuseNulCharacters: RequestHandler = (req, _res, next) => {
  const path = findNul(req.query) ?? findNul(req.body);
  if (path !== null) throw fieldError(path, "não pode conter o caractere nulo (\\u0000)");
  next();
};
