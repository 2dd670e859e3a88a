import type { PageRequest, PageResult } from "../../domain/core/model.js";
import { UnknownCursorError } from "../../domain/ports/store.js";

/** By id, as the background passes' pages go (`id > afterId`): ids are unique, so never a tie. */
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);

/** Oldest first on (createdAt, id): the order of the lists that are not pages (a timeline's reads). */
export const oldestFirst = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1;

/**
 * A page of `rows` (the list's scope), newest first on (createdAt, id): the rows that pass
 * `inList` after the cursor. The cursor is any row of the scope, in the filter or not.
 */
export function pageOf<T extends { id: string; createdAt: string }>(
  rows: T[],
  page: PageRequest,
  inList: (row: T) => boolean = () => true,
): PageResult<T> {
  const sorted = [...rows].sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1,
  );
  let start = 0;
  if (page.startingAfter !== undefined) {
    const at = sorted.findIndex((r) => r.id === page.startingAfter);
    if (at < 0) throw new UnknownCursorError();
    start = at + 1;
  }
  const items: T[] = [];
  for (let i = start; i < sorted.length && items.length <= page.limit; i++) {
    const row = sorted[i] as T;
    if (inList(row)) items.push(row);
  }
  return { items: items.slice(0, page.limit), hasMore: items.length > page.limit };
}
