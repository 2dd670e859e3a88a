import type {
  BankConnectionChangeRecord,
  BankConnectionRecord,
  BankHealthPatch,
  BankHealthRecord,
} from "../../domain/bank/model.js";
import type { BankReads, BankWrites } from "../../domain/ports/bank-store.js";
import type { TableDef } from "./rows.js";
import { execute, json, jsonOrNull, type Queryable } from "./sql.js";
import { insertRow, selectMany, selectOne, updateRow } from "./statements.js";

// The platform's bank connection (issue 35 §1; migration 1764590000020): the connection (one row),
// its health, its change log (append-only, a trigger refuses UPDATE and DELETE).

const bankConnectionTable: TableDef<BankConnectionRecord> = {
  name: "bank_connection",
  columns: [
    ["id", (c) => c.id],
    ["version", (c) => c.version],
    ["base_url", (c) => c.baseUrl],
    ["token_url", (c) => c.tokenUrl],
    ["client_id", (c) => c.clientId],
    ["client_secret", (c) => c.clientSecret],
    ["certificate", (c) => json(c.certificate)],
    ["bank_ca", (c) => jsonOrNull(c.bankCa)],
    ["pix_key", (c) => c.pixKey],
    ["dialect", (c) => c.dialect],
    ["webhook_url", (c) => c.webhookUrl],
    ["payout_limit_cents", (c) => c.payoutLimitCents],
    ["created_at", (c) => c.createdAt],
    ["updated_at", (c) => c.updatedAt],
  ],
};

const bankHealthTable: TableDef<BankHealthRecord> = {
  name: "bank_health",
  columns: [
    ["id", (h) => h.id],
    ["last_success_at", (h) => h.lastSuccessAt],
    ["token_expires_at", (h) => h.tokenExpiresAt],
    ["webhook_registered_at", (h) => h.webhookRegisteredAt],
    ["last_reconciliation_at", (h) => h.lastReconciliationAt],
    ["last_error", (h) => jsonOrNull(h.lastError)],
  ],
};

const bankConnectionChangesTable: TableDef<BankConnectionChangeRecord> = {
  name: "bank_connection_changes",
  columns: [
    ["id", (c) => c.id],
    ["action", (c) => c.action],
    ["ip", (c) => c.ip],
    ["changes", (c) => json(c.changes)],
    ["created_at", (c) => c.createdAt],
  ],
};

/** The health columns a patch may write, by field. */
const healthColumns: Record<keyof BankHealthPatch, { column: string; value: (patch: BankHealthPatch) => unknown }> = {
  lastSuccessAt: { column: "last_success_at", value: (p) => p.lastSuccessAt },
  tokenExpiresAt: { column: "token_expires_at", value: (p) => p.tokenExpiresAt },
  webhookRegisteredAt: { column: "webhook_registered_at", value: (p) => p.webhookRegisteredAt },
  lastReconciliationAt: { column: "last_reconciliation_at", value: (p) => p.lastReconciliationAt },
  lastError: { column: "last_error", value: (p) => jsonOrNull(p.lastError) },
};

export function bankReads(db: Queryable): BankReads {
  return {
    bankConnection: { get: () => selectOne(db, bankConnectionTable, "id = 'bank'", []) },
    bankHealth: { get: () => selectOne(db, bankHealthTable, "id = 'bank'", []) },
    bankConnectionChanges: {
      listRecent: (limit) =>
        selectMany(db, bankConnectionChangesTable, "TRUE", [limit], 'created_at DESC, id COLLATE "C" DESC LIMIT $1'),
    },
  };
}

export function bankWrites(client: Queryable): BankWrites {
  const r = bankReads(client);
  return {
    bankConnection: {
      ...r.bankConnection,
      insert: (connection) => insertRow(client, bankConnectionTable, connection),
      update: (connection) => updateRow(client, bankConnectionTable, connection),
      remove: async () => {
        await execute(client, "DELETE FROM bank_health WHERE id = 'bank'");
        await execute(client, "DELETE FROM bank_connection WHERE id = 'bank'");
      },
    },
    bankHealth: {
      ...r.bankHealth,
      record: async (patch) => {
        const fields = (Object.keys(healthColumns) as (keyof BankHealthPatch)[]).filter((f) => f in patch);
        if (fields.length === 0) return;
        const columns = fields.map((f) => healthColumns[f].column);
        const values = fields.map((f) => healthColumns[f].value(patch));
        await execute(
          client,
          `INSERT INTO bank_health (id, ${columns.join(", ")}) VALUES ('bank', ${columns.map((_c, i) => `$${i + 1}`).join(", ")})
             ON CONFLICT (id) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(", ")}`,
          values,
        );
      },
    },
    bankConnectionChanges: {
      ...r.bankConnectionChanges,
      append: (change) => insertRow(client, bankConnectionChangesTable, change),
    },
  };
}
