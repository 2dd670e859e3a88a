import type { components } from "../../../../generated/dashboard-api.js";
import type { DomainDeps, ScopedCaller } from "../deps.js";
import { notFound } from "../core/errors.js";
import type { EventRecord, RefundRecord, Schemas } from "../core/model.js";
import { presentDelivery } from "../webhooks/index.js";
import { presentRefund, presentTransaction } from "./presenters.js";
import { refundSourcesOf } from "./refunds.js";

// One transaction with what happened to it, as the dashboard's transaction page shows it.

type Dashboard = components["schemas"];
type TimelineEntry = Dashboard["TimelineEntry"];

/** The most entries a timeline holds (spec/dashboard/timeline.tsp), the earliest. */
const timelineLimit = 1000;

/** At one instant: the refund, then the event that tells of it, then that event's deliveries. */
const kindOrder: Record<TimelineEntry["kind"], number> = { refund: 0, event: 1, delivery: 2 };

export function transactionTimelineUseCases(deps: DomainDeps) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** Every refund of a charge, page after page (a charge has few). */
  async function refundsOf(caller: ScopedCaller, transactionId: string): Promise<RefundRecord[]> {
    const all: RefundRecord[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await store.read.refunds.listByTransaction(caller.scope, transactionId, {
        limit: 100,
        startingAfter,
      });
      all.push(...page.items);
      if (!page.hasMore || page.items.length === 0) return all;
      startingAfter = page.items.at(-1)?.id;
    }
  }

  return {
    /**
     * One transaction with what happened to it, oldest first: its refunds, the events about it or
     * them (`data.object.id`), and those events' webhook deliveries with every attempt.
     */
    async timeline(caller: ScopedCaller, id: string): Promise<Dashboard["TransactionTimeline"]> {
      const at = now();
      const record = await store.read.transactions.get(caller.scope, id);
      if (!record) throw notFound();
      const refunds = await refundsOf(caller, id);
      const events: EventRecord[] = await store.read.events.listAbout(
        caller.scope,
        [id, ...refunds.map((r) => r.id)],
        timelineLimit,
      );
      const deliveries = events.length > 0 ? await store.read.deliveries.listByEvents(events.map((e) => e.id)) : [];
      const timeline: TimelineEntry[] = [
        ...refunds.map((r): TimelineEntry => ({ at: r.createdAt, kind: "refund", refund: presentRefund(r) })),
        ...events.map((e): TimelineEntry => ({
          at: e.createdAt,
          kind: "event",
          event: e.payload as unknown as Schemas["Event"],
        })),
        ...deliveries.map((d): TimelineEntry => ({ at: d.createdAt, kind: "delivery", delivery: presentDelivery(d) })),
      ];
      const idOf = (e: TimelineEntry) => e.refund?.id ?? e.event?.id ?? e.delivery?.id ?? "";
      timeline.sort((a, b) =>
        a.at !== b.at
          ? a.at < b.at
            ? -1
            : 1
          : kindOrder[a.kind] - kindOrder[b.kind] || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0),
      );
      const refundSources = await refundSourcesOf(store.read, record, at);
      return {
        transaction: presentTransaction(record, at),
        ...(refundSources ? { refundSources } : {}),
        timeline: timeline.slice(0, timelineLimit),
      };
    },
  };
}
