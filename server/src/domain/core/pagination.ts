import { UnknownCursorError } from "../ports/store.js";
import { fieldError } from "./errors.js";
import type { PageResult } from "./model.js";

/** Runs a list query, answering a cursor that names no item as `VALIDATION_ERROR` on `startingAfter`. */
export async function pageOrInvalidCursor<T>(query: () => Promise<PageResult<T>>): Promise<PageResult<T>> {
  try {
    return await query();
  } catch (error) {
    if (error instanceof UnknownCursorError) {
      throw fieldError("startingAfter", "não corresponde a nenhum item desta lista");
    }
    throw error;
  }
}
