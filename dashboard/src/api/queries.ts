import {
  type QueryKey,
  type UseQueryOptions,
  useQuery,
  useQueryClient,
  type UseQueryResult,
} from "@tanstack/react-query";
import { useCursor } from "../components/DataTable";

// What every feature's queries.ts shares: the page of a paged list, the paged query at the address's
// cursor, and invalidation by key. A feature's reads are `api.queryOptions(method, path, init)`
// (openapi-react-query; key `[method, path, init]`), so a change invalidates by the same key —
// with only `{ params: { path } }` it matches every page and filter of that list.

/** Rows per page of the app's lists, unless a list asks for another size. */
const pageSize = 50;

/** The `limit` and `startingAfter` of one page. */
export interface Page {
  limit: number;
  startingAfter?: string;
}

/** The page after `startingAfter` (the first without it). */
function pageAt(startingAfter: string | undefined, limit: number): Page {
  return startingAfter ? { limit, startingAfter } : { limit };
}

/**
 * A paged list at the page the address holds (`?apos=`, DataTable's cursor):
 * `usePagedQuery((page) => paymentLinkQueries.list(mode, page))`.
 */
export function usePagedQuery<Data, Error, Key extends QueryKey>(
  optionsAt: (page: Page) => UseQueryOptions<Data, Error, Data, Key>,
  size: number = pageSize,
): UseQueryResult<Data, Error> {
  const { startingAfter } = useCursor();
  return useQuery(optionsAt(pageAt(startingAfter, size)));
}

/** Marks stale, and asks again when shown, every cached answer whose key begins like one of `keys`. */
export function useInvalidate(): (...keys: QueryKey[]) => Promise<void> {
  const client = useQueryClient();
  return async (...keys) => {
    await Promise.all(keys.map((queryKey) => client.invalidateQueries({ queryKey })));
  };
}
