import type { PixClient, PixThrowingClient } from "./client.js";
import { PixApiError } from "./errors.js";
import type { paths } from "./types.js";

/** The JSON body of a `200` answer of an operation (never when it has none). */
type OkJson<Op> = Op extends { responses: { 200: { content: { "application/json": infer Body } } } } ? Body : never;

/** A list page: `{ data: T[], hasMore }`. */
interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/**
 * The GET routes that answer a list page (`{ data: T[], hasMore: boolean }`) and so can be walked
 * with {@link paginate}: `/api/v1/transactions`, `/api/v1/customers`, `/api/v1/payment-links`,
 * `/api/v1/withdrawals`, `/api/v1/recurrences`, `/api/v1/events`, a charge's refunds.
 */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: infer Op }
    ? [OkJson<Op>] extends [never]
      ? never
      : OkJson<Op> extends Page<unknown>
        ? P
        : never
    : never;
}[keyof paths];

/** The item type of the list answered by `path`, for example {@link Transaction} for `/api/v1/transactions`. */
export type ListItem<P extends ListPath> = OkJson<paths[P]["get"]> extends Page<infer T> ? T : never;

/** The query parameters of the list answered by `path` (`limit`, `startingAfter` and its filters). */
export type ListQuery<P extends ListPath> = paths[P]["get"] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** Options of {@link paginate}. */
export interface PaginateOptions<P extends ListPath> {
  /**
   * Query of every page: filters and `limit` (the page size, 1 to 100). A `startingAfter` given here
   * only sets where the first page starts; later pages follow the cursor.
   */
  query?: ListQuery<P>;
  /** Extra request headers for every page. */
  headers?: Record<string, string>;
  /** Aborts the page request in flight; the iteration then throws the abort error. */
  signal?: AbortSignal;
}

type LooseGet = (
  path: string,
  init: { params: { query: Record<string, unknown> }; headers?: Record<string, string>; signal?: AbortSignal },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Iterates over every item of a list route, page after page, in the order the API answers them
 * (newest first). Each next page is asked with `startingAfter` = the `id` of the last item of the
 * page before, while the API answers `hasMore: true`. Pages are fetched lazily: breaking out of the
 * loop stops fetching.
 *
 * @example
 * ```ts
 * for await (const txn of paginate(client, "/api/v1/transactions", { query: { status: "PAID" } })) {
 *   console.log(txn.id, txn.amountCents);
 * }
 * ```
 * @param client A client from {@link createPixClient} (either style).
 * @param path A list route; the item type is inferred from it.
 * @param init Filters, page size, headers and an abort signal.
 * @throws PixApiError when a page answers a non-2xx status (its `code` tells why).
 * @throws TypeError when a page is not a `{ data, hasMore }` list, or its last item has no `id`.
 */
export async function* paginate<P extends ListPath>(
  client: PixClient | PixThrowingClient,
  path: P,
  init: PaginateOptions<P> = {},
): AsyncGenerator<ListItem<P>, void, undefined> {
  const get = client.GET as unknown as LooseGet;
  const baseQuery: Record<string, unknown> = { ...(init.query as Record<string, unknown> | undefined) };
  let startingAfter: unknown = baseQuery.startingAfter;

  for (;;) {
    const query = { ...baseQuery };
    if (startingAfter === undefined) delete query.startingAfter;
    else query.startingAfter = startingAfter;

    const request: Parameters<LooseGet>[1] = { params: { query } };
    if (init.headers) request.headers = init.headers;
    if (init.signal) request.signal = init.signal;
    const { data, error, response } = await get(path, request);
    if (!response.ok) throw PixApiError.fromResponse(response, error);

    const page = data as Partial<Page<unknown>> | undefined;
    if (!page || !Array.isArray(page.data) || typeof page.hasMore !== "boolean") {
      throw new TypeError(`paginate: ${path} did not answer a { data, hasMore } page`);
    }
    for (const item of page.data) yield item as ListItem<P>;
    if (!page.hasMore || page.data.length === 0) return;

    const last = page.data[page.data.length - 1] as { id?: unknown } | undefined;
    if (typeof last?.id !== "string" || last.id === "") {
      throw new TypeError(`paginate: the last item of a ${path} page has no id to continue from`);
    }
    startingAfter = last.id;
  }
}
