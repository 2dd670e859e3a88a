/**
 * `BankAccess` (DomainDeps.bank): the platform's bank as the domain reaches it. It loads the
 * connection's decrypted material (`loadBankCredentials`), builds the client once per version of
 * the connection, and rebuilds it when the operator changes the connection (a new version),
 * possibly in another process: the version is read again at most every `recheckMs`. The client
 * replaced finishes its calls in flight before its sockets close.
 *
 * Only the first load is waited for. After it, `current()` answers the client held at once and a
 * due re-read runs in the background: the domain calls `current()` inside store transactions
 * (decision record 0051), and a burst of them holding every pooled connection must not wait on a
 * read that needs one more.
 */
import type { BankCredentials } from "../domain/bank/index.js";
import type { BankAccess } from "../domain/deps.js";
import type { PixPayouts } from "../domain/ports/pix-payouts.js";
import type { BankClient, BankClientOptions } from "./client.js";

export interface BankAccessOptions extends BankClientOptions {
  /** The connection's material, or null while none is configured. */
  load: () => Promise<BankCredentials | null>;
  /** How long a loaded version is trusted before the store is asked again (default 5 000 ms). */
  recheckMs?: number;
  /** Told after each change of client (a new version, or the connection removed). */
  onChange?: (change: { bank: BankClient | null; credentials: BankCredentials | null }) => void;
  /** The bounded wait of a create for the bank (`BankAccess.waitMs`). */
  waitMs?: number;
  /** Builds a client (default `pixBankFrom`). */
  build?: (credentials: BankCredentials, options: BankClientOptions) => BankClient | Promise<BankClient>;
  /** A background re-read failed (the client held stays). */
  onLoadError?: (error: unknown) => void;
}

export interface ManagedBankAccess extends BankAccess {
  current(): Promise<BankClient | null>;
  /** The payouts of the connection's dialect over the client's transport (null: none). */
  payouts(): Promise<PixPayouts | null>;
  /** Reads the connection now and waits for it (at start-up, after a change made in this process). */
  refresh(): Promise<BankClient | null>;
  /** Closes the client held. */
  close(): Promise<void>;
}

export function bankAccess(options: BankAccessOptions): ManagedBankAccess {
  const recheckMs = options.recheckMs ?? 5_000;
  const now = options.now ?? Date.now;
  // The client (undici, openapi-fetch, the payouts) is imported with the first connection read, not
  // at start-up: most servers have none (docs/benchmarks.md, "Start-up").
  const build =
    options.build ??
    (async (credentials: BankCredentials, clientOptions: BankClientOptions) =>
      (await import("./client.js")).pixBankFrom(credentials, clientOptions));
  const clientOptions: BankClientOptions = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.breaker === undefined ? {} : { breaker: options.breaker }),
  };
  let held: { version: number; client: BankClient; payouts: PixPayouts | null } | null = null;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checking: Promise<BankClient | null> | null = null;

  /**
   * The connection last seen, its whole material: null while none is configured, undefined before
   * the first load. Not its version alone: a connection removed and set again starts again at
   * version 1, and a process that read neither change in between kept the old bank's client.
   */
  let seen: string | null | undefined;

  async function check(): Promise<BankClient | null> {
    const credentials = await options.load();
    checkedAt = now();
    const identity = credentials === null ? null : JSON.stringify(credentials);
    if (identity === seen) return held?.client ?? null;
    let next: typeof held = null;
    if (credentials !== null) {
      const client = await build(credentials, clientOptions);
      const { pixPayoutsFrom } = await import("./payouts.js");
      next = { version: credentials.version, client, payouts: pixPayoutsFrom(credentials, client.transport) };
    }
    seen = identity;
    const previous = held;
    held = next;
    void previous?.client.close().catch(() => undefined);
    options.onChange?.({ bank: held?.client ?? null, credentials });
    return held?.client ?? null;
  }

  /** One load for every concurrent caller. */
  function load(): Promise<BankClient | null> {
    checking ??= check().finally(() => {
      checking = null;
    });
    return checking;
  }

  return {
    ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
    current() {
      if (seen === undefined) return load();
      if (now() - checkedAt >= recheckMs) void load().catch((error: unknown) => options.onLoadError?.(error));
      return Promise.resolve(held?.client ?? null);
    },
    async payouts() {
      await this.current();
      return held?.payouts ?? null;
    },
    async refresh() {
      // A read begun before the caller's change may miss it: wait for it, then read anew.
      await checking?.catch(() => undefined);
      return load();
    },
    async close() {
      const last = held;
      held = null;
      seen = undefined;
      checkedAt = Number.NEGATIVE_INFINITY;
      await last?.client.close();
    },
  };
}
