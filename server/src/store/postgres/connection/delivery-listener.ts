import pg from "pg";
import type { StoreLogger } from "./pool.js";

/** How long after a lost LISTEN connection the next one is dialled. */
const redialMs = 1_000;

/**
 * One dedicated connection that LISTENs on `webhook_deliveries` (the trigger of migration
 * 1764100000000 NOTIFYs it at every commit that queued deliveries, from any process) and calls
 * `onNotify`. A lost connection is dialled again after a second; meanwhile the workers' polling
 * delivers as before, so nothing is lost but speed.
 */
export class DeliveryListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Whether the connection was reported lost and has not come back yet. */
  private away = false;

  /**
   * `fromOwnCommit(backendPid)`: whether the notifying session is one this process already heard
   * at its own commit; that notification is skipped (one pass per commit, not two).
   */
  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onNotify: () => void,
    private readonly logger: StoreLogger,
    private readonly fromOwnCommit: (backendPid: number) => boolean = () => false,
  ) {
    this.dial();
  }

  private dial(): void {
    if (this.closed) return;
    const client = new pg.Client(this.config);
    this.client = client;
    let lost = false;
    const redial = (error: Error) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners("notification");
      client.end().catch(() => undefined);
      if (this.client === client) this.client = null;
      if (this.closed) return;
      // Once per outage: the redials that fail while the database is away stay quiet.
      if (!this.away)
        this.logger.warn({ reason: error.message }, "webhook LISTEN connection lost; polling until it is back");
      this.away = true;
      this.timer = setTimeout(() => this.dial(), redialMs);
      this.timer.unref();
    };
    client.on("error", redial);
    client.on("end", () => redial(new Error("connection ended")));
    client.on("notification", (message: pg.Notification) => {
      if (!this.fromOwnCommit(message.processId)) this.onNotify();
    });
    client
      .connect()
      .then(() => client.query("LISTEN webhook_deliveries"))
      .then(() => {
        if (this.away) this.logger.warn({}, "webhook LISTEN connection back; notifications resume");
        this.away = false;
        // A notification sent while this connection was being dialled is not replayed: one pass.
        this.onNotify();
      })
      .catch((error: unknown) => redial(error as Error));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners("end");
      await client.end().catch(() => undefined);
    }
  }
}
