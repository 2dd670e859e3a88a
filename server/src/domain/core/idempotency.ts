import { createHash } from "node:crypto";
import type { DomainDeps } from "../deps.js";
import type { StoreTx } from "../ports/store.js";
import { DomainError } from "./errors.js";
import type { Scope } from "./model.js";
import { idempotencyWindowSeconds } from "./policy.js";

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const hashRequest = (body: unknown): string => createHash("sha256").update(canonicalJson(body)).digest("hex");

/**
 * What an idempotent use case answers: its first outcome, or a replay of it. A replay also carries
 * `text`, the response body exactly as first serialised, so it can be answered byte for byte.
 */
export type Outcome<T> =
  { replayed: false; status: number; body: T } | { replayed: true; status: number; body: T; text: string };

/**
 * Runs `create` at most once per (scope, operation, key) within the window, inside the caller's
 * transaction: the same key and request replay the first outcome; another request is a 409. The
 * caller holds `lockScope`, so two requests with one key cannot both reach `create`. `request` is
 * what makes two requests the same: the body, and the path's id for an operation on one object.
 * The body is remembered as its JSON text (`JSON.stringify`, as the HTTP layer sends it), never
 * re-serialised, so a replay is the first answer's bytes whatever the store does with JSON.
 */
export async function once<T>(
  tx: StoreTx,
  scope: Scope,
  operation: string,
  key: string | undefined,
  request: unknown,
  now: string,
  create: () => Promise<{ status: number; body: T }>,
): Promise<Outcome<T>> {
  if (key === undefined) return { ...(await create()), replayed: false };
  const requestHash = hashRequest(request);
  const existing = await tx.idempotency.get(scope, operation, key);
  if (existing) {
    const age = (new Date(now).getTime() - new Date(existing.createdAt).getTime()) / 1000;
    if (age < idempotencyWindowSeconds) {
      if (existing.requestHash !== requestHash) throw new DomainError("IDEMPOTENCY_KEY_REUSED");
      const text = existing.responseText;
      return { status: existing.responseStatus, body: JSON.parse(text) as T, text, replayed: true };
    }
    await tx.idempotency.delete(scope, operation, key);
  }
  const outcome = await create();
  await tx.idempotency.insert({
    ...scope,
    operation,
    key,
    requestHash,
    responseStatus: outcome.status,
    responseText: JSON.stringify(outcome.body),
    createdAt: now,
  });
  return { ...outcome, replayed: false };
}

export function idempotencyUseCases(deps: Pick<DomainDeps, "store" | "clock">) {
  return {
    /**
     * Forgets every idempotency record older than the window, in every account and mode: past it a
     * key is new again anyway, so the records only take room. Answers how many were forgotten.
     */
    async purgeExpired(): Promise<number> {
      const cutoff = new Date(deps.clock.now().getTime() - idempotencyWindowSeconds * 1000).toISOString();
      return deps.store.transaction((tx) => tx.idempotency.purgeCreatedBefore(cutoff));
    },
  };
}
