import type { components } from "../../../../generated/dashboard-api.js";
import type { Actor, DomainDeps, ScopedCaller } from "../deps.js";
import { newId } from "../core/ids.js";
import type { PageRequest } from "../core/model.js";
import { notFound } from "../core/errors.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import type { Authentication, Credentials } from "../keys/index.js";
import { maskedJson, maskedPath, successAnswerLimit } from "./masking.js";
import { type RequestLogRecord, type RequestLogSummaryRecord, summaryOf } from "./model.js";

// The request logs (issue 37 §2; docs/decisions/0058-request-logs.md): every public API request
// made with a key is noted after its answer is sent (`record`, a push onto a bounded buffer: no
// await, no failure), and written in batches outside the request (`flush`, by the request-logs job
// every second, at 200 waiting, before a list is read, and at shutdown). The masking of the bodies
// is the flush's work, not the request's. A full buffer drops what comes (counted, logged once a
// flush); a store that fails a batch loses it (logged), never a request.

type Schemas = components["schemas"];

/** How many days back the logs show, and the days kept before today (older ones are dropped whole). */
const requestLogDays = 7;

/** How many entries wait at most (past it, new ones are dropped and counted), and a batch's size. */
const defaultRequestLogBuffer = { capacity: 10_000, batchSize: 200 };

/** A request as the HTTP layer saw it, after its answer was sent. */
export interface RequestCapture {
  /** The admitted caller, or what it presented (an operation its read admits: `keys.recall` names the key). */
  caller: { actor: Actor } | { credentials: Credentials };
  method: string;
  /** The path asked, without its query. */
  path: string;
  /** The operation's path template. */
  route: string;
  /** The parsed query (empty: none). */
  query: Record<string, unknown> | undefined;
  status: number;
  durationMs: number;
  requestId: string;
  /** The parsed JSON body, when the request had one. */
  requestBody: unknown;
  /** The JSON the server sent, when it sent JSON. */
  responseText: string | undefined;
}

const dayMs = 86_400_000;
/** The UTC day of an instant (the store keeps the logs by it). */
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A status filter (`404`, `4xx`) as a range of statuses, `to` excluded. */
function statusRange(status: string | undefined): { from: number; to: number } | undefined {
  if (status === undefined) return undefined;
  const first = Number(status[0]);
  return status.endsWith("xx")
    ? { from: first * 100, to: first * 100 + 100 }
    : { from: Number(status), to: Number(status) + 1 };
}

const presentKey = (e: RequestLogSummaryRecord | RequestLogRecord) => ({
  id: e.keyId,
  name: e.keyName,
  prefix: e.keyPrefix,
});

const presentSummary = (e: RequestLogSummaryRecord): Schemas["RequestLogSummary"] => ({
  id: e.id,
  createdAt: e.createdAt,
  method: e.method,
  path: e.path,
  route: e.route,
  status: e.status,
  durationMs: e.durationMs,
  requestId: e.requestId,
  key: presentKey(e),
  errorBody: e.errorBody,
});

const presentLog = (e: RequestLogRecord): Schemas["RequestLog"] => ({
  ...presentSummary(summaryOf(e)),
  query: e.query,
  requestBody: e.requestBody,
  requestBodyTruncated: e.requestBodyTruncated,
  responseBody: e.responseBody,
  responseBodyTruncated: e.responseBodyTruncated,
});

/** A query kept only when it has something, masked like the bodies (4 KiB). */
function maskedQuery(query: Record<string, unknown> | undefined): string | null {
  if (!query) return null;
  for (const _name in query) return maskedJson(JSON.stringify(query), 4096).text;
  return null;
}

export function requestLogUseCases(
  deps: Pick<DomainDeps, "store" | "clock" | "logger" | "config">,
  authentication: Pick<Authentication, "recall">,
) {
  const { store, clock, logger } = deps;
  const { capacity, batchSize } = deps.config.requestLogBuffer ?? defaultRequestLogBuffer;
  let waiting: { capture: RequestCapture; at: number }[] = [];
  let dropped = 0;
  /** Entries the store refused (the memory store's daily budget). */
  let refused = 0;
  let flushing: Promise<void> | null = null;
  let flushSoon = false;
  /** The days this process knows ready (PostgreSQL's partitions made). */
  const readyDays = new Set<string>();

  /** The entry a capture becomes, or null when its key cannot be named (a key not admitted). */
  function entryOf({ capture, at }: { capture: RequestCapture; at: number }): RequestLogRecord | null {
    const actor =
      "actor" in capture.caller ? capture.caller.actor : authentication.recall(capture.caller.credentials)?.actor;
    if (!actor) return null;
    const request =
      capture.requestBody === undefined ? null : maskedJson(JSON.stringify(capture.requestBody) ?? "null");
    const response =
      capture.responseText === undefined
        ? null
        : capture.status >= 400
          ? maskedJson(capture.responseText)
          : maskedJson(capture.responseText, successAnswerLimit);
    return {
      id: newId("rlg"),
      accountId: actor.scope.accountId,
      livemode: actor.scope.livemode,
      keyId: actor.apiKey.id,
      keyName: actor.apiKey.name,
      keyPrefix: actor.apiKey.prefix,
      method: capture.method,
      path: maskedPath(capture.path),
      route: capture.route,
      query: maskedQuery(capture.query),
      status: capture.status,
      durationMs: Math.max(0, Math.round(capture.durationMs)),
      requestId: capture.requestId,
      requestBody: request?.text ?? null,
      requestBodyTruncated: request?.truncated ?? false,
      responseBody: response?.text ?? null,
      responseBodyTruncated: response?.truncated ?? false,
      createdAt: new Date(at).toISOString(),
    };
  }

  async function write(batch: RequestLogRecord[]): Promise<void> {
    const days = new Set(batch.map((e) => e.createdAt.slice(0, 10)));
    const unready = [...days].filter((day) => !readyDays.has(day));
    if (unready.length > 0) {
      await store.requestLogs.prepareDays(unready);
      for (const day of unready) readyDays.add(day);
    }
    const kept = await store.requestLogs.appendMany(batch);
    if (kept < batch.length) refused += batch.length - kept;
  }

  async function flushAll(): Promise<void> {
    while (waiting.length > 0) {
      const taken = waiting.slice(0, batchSize);
      waiting = waiting.length > batchSize ? waiting.slice(batchSize) : [];
      const batch = taken.map(entryOf).filter((e): e is RequestLogRecord => e !== null);
      if (batch.length === 0) continue;
      try {
        await write(batch);
      } catch (err) {
        logger.warn({ err, lost: batch.length }, "request logs not written");
      }
    }
    if (dropped > 0) {
      logger.warn({ dropped }, "request logs dropped: the buffer was full");
      dropped = 0;
    }
    if (refused > 0) {
      logger.warn({ refused }, "request logs not kept: the store's budget for the day is spent");
      refused = 0;
    }
  }

  /** Writes what waits (one flush at a time; a flush asked meanwhile joins it, and it writes until nothing waits). */
  function flush(): Promise<void> {
    flushing ??= flushAll().finally(() => {
      flushing = null;
    });
    return flushing;
  }

  return {
    /**
     * Notes a request after its answer: a push, never a wait or a failure. A full buffer drops it
     * (counted); a full batch asks for a flush on the next turn of the event loop.
     */
    record(capture: RequestCapture): void {
      if (waiting.length >= capacity) {
        dropped++;
        return;
      }
      waiting.push({ capture, at: clock.now().getTime() });
      if (waiting.length >= batchSize && !flushSoon) {
        flushSoon = true;
        setImmediate(() => {
          flushSoon = false;
          void flush();
        });
      }
    },

    flush,

    /**
     * The day's maintenance (the request-logs job, hourly): today and the next two days made ready,
     * and every day before the last `requestLogDays` dropped whole. The days dropped.
     */
    async maintainDays(): Promise<string[]> {
      const now = clock.now().getTime();
      const ahead = [0, 1, 2].map((n) => utcDay(now + n * dayMs));
      await store.requestLogs.prepareDays(ahead);
      for (const day of ahead) readyDays.add(day);
      const gone = await store.requestLogs.dropDaysBefore(utcDay(now - requestLogDays * dayMs));
      for (const day of gone) readyDays.delete(day);
      return gone;
    },

    /** The mode's requests of the last 7 days, newest first; what this process still holds is written first. */
    async list(
      caller: ScopedCaller,
      query: { status?: string | undefined; path?: string | undefined; keyId?: string | undefined },
      page: PageRequest,
    ): Promise<Schemas["RequestLogSummaryPage"]> {
      await flush();
      const since = new Date(clock.now().getTime() - requestLogDays * dayMs).toISOString();
      const result = await pageOrInvalidCursor(() =>
        store.requestLogs.listPage(caller.scope, page, {
          since,
          status: statusRange(query.status),
          pathContains: query.path,
          keyId: query.keyId,
        }),
      );
      return { data: result.items.map(presentSummary), hasMore: result.hasMore };
    },

    /** One request of the mode with its bodies; gone (404) after 7 days. */
    async get(caller: ScopedCaller, id: string): Promise<Schemas["RequestLog"]> {
      await flush();
      const since = new Date(clock.now().getTime() - requestLogDays * dayMs).toISOString();
      const found = await store.requestLogs.get(caller.scope, id, since);
      if (!found) throw notFound();
      return presentLog(found);
    },
  };
}
