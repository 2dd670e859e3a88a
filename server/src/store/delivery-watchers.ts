/**
 * The listeners of a store's `watchDeliveries`: called once per committed transaction that queued
 * webhook deliveries, after the commit (a worker woken earlier would not see the rows yet).
 */
export class DeliveryWatchers {
  private readonly listeners = new Set<() => void>();

  get size(): number {
    return this.listeners.size;
  }

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Calls every listener on the next microtask, after the caller's commit has returned. */
  notify(): void {
    if (this.listeners.size === 0) return;
    queueMicrotask(() => {
      for (const listener of this.listeners) listener();
    });
  }
}
