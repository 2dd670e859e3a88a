import type { ExportLease, ExportLeases } from "../../domain/ports/export-leases.js";

/**
 * The CSV exports under way in this process (`ExportLeases`): a user's leases, at most `limit`
 * unexpired ones. Nothing awaits between the count and the taking, so two takes never interleave.
 */
export class MemoryExportLeases implements ExportLeases {
  private readonly leases = new Map<string, ExportLease>();

  async take(lease: ExportLease, limit: number, now: string): Promise<boolean> {
    const nowMs = Date.parse(now);
    let held = 0;
    for (const other of this.leases.values()) {
      if (Date.parse(other.expiresAt) <= nowMs) this.leases.delete(other.id);
      else if (other.userId === lease.userId) held++;
    }
    if (held >= limit) return false;
    this.leases.set(lease.id, { ...lease });
    return true;
  }

  async renew(leaseId: string, expiresAt: string): Promise<void> {
    const lease = this.leases.get(leaseId);
    if (lease) this.leases.set(leaseId, { ...lease, expiresAt });
  }

  async release(leaseId: string): Promise<void> {
    this.leases.delete(leaseId);
  }
}
