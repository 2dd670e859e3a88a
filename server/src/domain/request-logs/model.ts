// The records of the request logs (issue 37 §2; docs/decisions/0058-request-logs.md).

/** One public API request made with a key, as kept (bodies masked and cut: masking.ts). */
export interface RequestLogRecord {
  /** `rlg_…`. */
  id: string;
  accountId: string;
  livemode: boolean;
  keyId: string;
  /** The key's name and visible prefix when the request was made (never its secret). */
  keyName: string;
  keyPrefix: string;
  method: string;
  /** The path asked, without its query. */
  path: string;
  /** The operation's path template (`/api/v1/transactions/{id}`). */
  route: string;
  /** The query as JSON, masked; null when none. */
  query: string | null;
  status: number;
  durationMs: number;
  requestId: string;
  requestBody: string | null;
  requestBodyTruncated: boolean;
  responseBody: string | null;
  responseBodyTruncated: boolean;
  /** When its answer was sent (it arrived `durationMs` before). */
  createdAt: string;
}

/** A request as the list shows it: no bodies but a failure's answer (`errorBody`). */
export type RequestLogSummaryRecord = Omit<
  RequestLogRecord,
  "query" | "requestBody" | "requestBodyTruncated" | "responseBody" | "responseBodyTruncated"
> & { errorBody: string | null };

/**
 * A request as the list shows it, from the whole entry: its bodies left out, a failure's answer
 * (status 400 or more) kept as `errorBody` (PostgreSQL's list reads the same with a CASE).
 */
export function summaryOf(e: RequestLogRecord): RequestLogSummaryRecord {
  const {
    query: _query,
    requestBody: _requestBody,
    requestBodyTruncated: _requestBodyTruncated,
    responseBody,
    responseBodyTruncated: _responseBodyTruncated,
    ...summary
  } = e;
  return { ...summary, errorBody: e.status >= 400 ? responseBody : null };
}

/** The list's filters. */
export interface RequestLogFilter {
  /** Entries made at or after this instant (the 7 days' window). */
  since: string;
  /** An exact status, or a class (`4` for 4xx): `{ from, to }`, `to` excluded. */
  status?: { from: number; to: number } | undefined;
  /** Paths containing this text. */
  pathContains?: string | undefined;
  keyId?: string | undefined;
}
