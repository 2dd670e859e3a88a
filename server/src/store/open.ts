import type { Store as RateLimitStore } from "express-rate-limit";
import type { Logger } from "pino";
import { MemoryStore } from "./memory.js";
import type { Store } from "./port.js";

export interface OpenedStore {
  store: Store;
  kind: "memory" | "postgres";
  /** Shared rate-limit counters (PostgreSQL); undefined keeps them in process memory. */
  rateLimitStore?: (name: string) => RateLimitStore;
}

/** The memory store, or PostgreSQL when `DATABASE_URL` is set. */
export async function openStore(databaseUrl: string | undefined, _logger: Logger): Promise<OpenedStore> {
  if (!databaseUrl) return { store: new MemoryStore(), kind: "memory" };
  throw new Error("DATABASE_URL is set but the PostgreSQL store is not built yet");
}
