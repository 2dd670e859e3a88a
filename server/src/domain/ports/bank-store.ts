import type {
  BankConnectionChangeRecord,
  BankConnectionRecord,
  BankHealthPatch,
  BankHealthRecord,
} from "../bank/model.js";

// The part of the Store port that keeps the platform's bank connection (issue 35 §1): both
// adapters implement it (`store/memory/bank.ts`, `store/postgres/bank.ts`).

export interface BankReads {
  bankConnection: {
    /** The connection, or null when none is set. */
    get(): Promise<BankConnectionRecord | null>;
  };
  bankHealth: {
    /** The connection's health, or null before anything was written. */
    get(): Promise<BankHealthRecord | null>;
  };
  bankConnectionChanges: {
    /** The newest `limit` entries, newest first. */
    listRecent(limit: number): Promise<BankConnectionChangeRecord[]>;
  };
}

export interface BankWrites {
  bankConnection: BankReads["bankConnection"] & {
    insert(connection: BankConnectionRecord): Promise<void>;
    update(connection: BankConnectionRecord): Promise<void>;
    /** Deletes the connection and its health. */
    remove(): Promise<void>;
  };
  bankHealth: BankReads["bankHealth"] & {
    /**
     * Writes the fields of `patch` alone, in one statement (the row made when absent): health writes
     * of several processes each keep their own fields.
     */
    record(patch: BankHealthPatch): Promise<void>;
  };
  bankConnectionChanges: BankReads["bankConnectionChanges"] & {
    /** Appended, never changed. */
    append(change: BankConnectionChangeRecord): Promise<void>;
  };
}
