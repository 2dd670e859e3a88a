import { expect, test } from "vitest";
import { createPixClient, paginate, type Recurrence, type WebhookEvent } from "../../../client/src/index.js";
import { brasiliaDate } from "../../src/domain/payments/index.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import { eachStore, serverOn } from "../support/stores.js";

// The partner client over recurrences (Pix Automático): typed calls, `paginate` over the new list
// with its filters, and the new event kinds in the events' union, against a real server.

for (const store of eachStore("recurrence_client")) {
  store.describe(`the partner client and recurrences on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when recurrences are made and paged with paginate, then every one comes back once, newest first, typed, and filters apply", async () => {
      const { testKey } = await server.newAccount();
      const client = createPixClient({ apiKey: testKey, baseUrl: server.baseUrl, throwOnError: true });
      const firstDate = dateAfter(brasiliaDate(server.clock.now()), 31);
      const made: Recurrence[] = [];
      for (let i = 0; i < 5; i++) {
        const { data } = await client.POST("/api/v1/recurrences", {
          body: recurrenceBody({ firstDate, contractReference: `CONTRATO-${i}` }),
        });
        made.push(data);
      }
      await client.POST("/api/v1/sandbox/recurrences/{id}/approve", {
        params: { path: { id: made[1]?.id as string } },
        body: {},
      });

      const all: Recurrence[] = [];
      for await (const r of paginate(client, "/api/v1/recurrences", { query: { limit: 2 } })) all.push(r);
      const approved: string[] = [];
      for await (const r of paginate(client, "/api/v1/recurrences", { query: { status: "APPROVED", limit: 1 } })) {
        approved.push(r.id);
      }

      expect(all.map((r) => r.id)).toEqual(made.map((r) => r.id).reverse());
      expect(all.map((r) => r.contractReference)).toEqual([
        "CONTRATO-4",
        "CONTRATO-3",
        "CONTRATO-2",
        "CONTRATO-1",
        "CONTRATO-0",
      ]);
      expect(approved).toEqual([made[1]?.id]);
      const kinds: WebhookEvent["type"][] = [];
      for await (const e of paginate(client, "/api/v1/events", { query: { type: "recurrence.created" } }))
        kinds.push(e.type);
      expect(kinds).toHaveLength(5);
    });
  });
}
