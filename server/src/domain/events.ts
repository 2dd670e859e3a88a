import type { StoreTx } from "../store/port.js";
import { newId } from "./ids.js";
import type { Scope, WebhookEventType } from "./model.js";

/** The event format version (DESIGN §3). */
export const eventApiVersion = "1.0.0";

/** Records an event in the outbox, inside the transaction that caused it. */
export async function recordEvent(
  tx: StoreTx,
  scope: Scope,
  type: WebhookEventType,
  object: Record<string, unknown>,
  now: string,
): Promise<string> {
  const id = newId("evt");
  await tx.events.append({
    id,
    ...scope,
    type,
    createdAt: now,
    payload: { id, type, createdAt: now, livemode: scope.livemode, apiVersion: eventApiVersion, data: { object } },
  });
  return id;
}
