// The port of the CSV exports' per-user cap (docs/decisions/0046-csv-exports-two-at-once-per-user.md):
// a user's exports under way, as leases that end when the export ends or, should its process die
// with it, when they expire. Part of the store (`Store.exportLeases`), so every server process on
// one database counts the same exports; the memory store's count is its process's.

/** One export's hold on one of its user's slots. */
export interface ExportLease {
  /** Made by the caller, unique: what `renew` and `release` name. */
  id: string;
  userId: string;
  /** After this instant the slot is free again, whether or not the lease was released. */
  expiresAt: string;
}

export interface ExportLeases {
  /**
   * Takes one of `userId`'s `limit` slots for `lease` when one is free (never taken, released, or
   * expired at `now`), atomically across the processes sharing the store; false when every slot is
   * held.
   */
  take(lease: ExportLease, limit: number, now: string): Promise<boolean>;
  /** Moves the lease's expiry to `expiresAt`, if it still holds its slot. */
  renew(leaseId: string, expiresAt: string): Promise<void>;
  /** Frees the lease's slot; a lease already released or expired: nothing. */
  release(leaseId: string): Promise<void>;
}
