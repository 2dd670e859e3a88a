import type { RecurrenceRecord, Scope } from "../../domain/core/model.js";
import { recurrenceStatusMatches, type StoreReads } from "../../domain/ports/store.js";
import { byId, pageOf } from "./page.js";

/** What the reads need of the memory store's table of recurrences. */
interface RecurrenceRows {
  get(id: string): RecurrenceRecord | null;
  all(): RecurrenceRecord[];
}

const inScope = (r: Scope, s: Scope) => r.accountId === s.accountId && r.livemode === s.livemode;

/** The memory store's reads of recurrences (Pix Automático). */
export function recurrenceReads(rows: RecurrenceRows): StoreReads["recurrences"] {
  return {
    get: async (scope, id) => {
      const r = rows.get(id);
      return r && inScope(r, scope) ? r : null;
    },
    getById: async (id) => rows.get(id),
    getByBankRecId: async (bankRecId) => rows.all().find((r) => r.bankRecId === bankRecId) ?? null,
    list: async (scope, f, page) =>
      pageOf(
        rows.all().filter((r) => inScope(r, scope)),
        page,
        (r) =>
          (f.status === undefined || recurrenceStatusMatches(r, f.status, f.now)) &&
          (f.customerId === undefined || r.payer.id === f.customerId) &&
          (f.createdFrom === undefined || r.createdAt >= f.createdFrom) &&
          (f.createdTo === undefined || r.createdAt < f.createdTo),
      ),
    listExpiring: async (now, limit) =>
      rows
        .all()
        .filter((r) => r.status === "CREATED" && r.expiresAt <= now)
        .sort((a, b) => (a.expiresAt < b.expiresAt ? -1 : a.expiresAt > b.expiresAt ? 1 : a.id < b.id ? -1 : 1))
        .slice(0, limit),
    listAutomatic: async (limit, afterId) =>
      rows
        .all()
        .filter((r) => r.status === "APPROVED" && r.automaticCharges && (afterId === undefined || r.id > afterId))
        .sort(byId)
        .slice(0, limit),
  };
}
