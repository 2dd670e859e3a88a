import type { Account, ApiKeyRecord } from "../../domain/core/model.js";
import type { KeyWithAccount, StoreReads } from "../../domain/ports/store.js";
import type { Table } from "./table.js";
import { pageOf } from "./page.js";
import type { RowVersions } from "./row-versions.js";

/**
 * The memory store's API keys: found by their current secret's digest or, after a roll, by the one
 * before; and when each was last used, kept apart from the keys' rows (written outside
 * transactions, a use never changes a key's version).
 */
export class MemoryApiKeys {
  private readonly uses = new Map<string, string>();

  constructor(
    private readonly keys: Table<ApiKeyRecord>,
    private readonly accounts: Table<Account>,
    private readonly versions: RowVersions,
  ) {}

  /** The key whose `digest` (or `previousDigest`) is this one, with its account and their version. */
  withAccount(digest: string, column: "digest" | "previousDigest" = "digest"): KeyWithAccount | null {
    const key = this.keys.all().find((k) => k[column] === digest);
    if (!key) return null;
    const account = this.accounts.get(key.accountId);
    return { key, account, version: `${this.versions.of(key)}:${account ? this.versions.of(account) : "-"}` };
  }

  recordUse(keyId: string, at: string): void {
    const stored = this.uses.get(keyId);
    if (stored === undefined || stored < at) this.uses.set(keyId, at);
  }

  reads(): StoreReads["apiKeys"] {
    return {
      get: async (id) => this.keys.get(id),
      getByDigest: async (digest) => this.keys.all().find((k) => k.digest === digest) ?? null,
      getByDigestWithAccount: async (digest) => this.withAccount(digest),
      getByPreviousDigestWithAccount: async (digest) => this.withAccount(digest, "previousDigest"),
      listByAccount: async (accountId) =>
        this.keys
          .all()
          .filter((k) => k.accountId === accountId)
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)),
      list: async (scope, page) =>
        pageOf(
          this.keys.all().filter((k) => k.accountId === scope.accountId && k.livemode === scope.livemode),
          page,
        ),
      lastUses: async (keyIds) => {
        const found = new Map<string, string>();
        for (const id of keyIds) {
          const at = this.uses.get(id);
          if (at !== undefined) found.set(id, at);
        }
        return found;
      },
    };
  }
}
