import { startThrowawayCluster, type ThrowawayCluster } from "../../../scripts/pg-cluster.js";

/**
 * One throwaway PostgreSQL cluster for the whole test run, started by whichever global setup asks
 * first. vitest 4.1 runs the projects' global setups one after another in its main process, before
 * the first test (`initializeGlobalSetup`): `postgres`, `browser` and `contract` each started a
 * cluster of their own, three `initdb` and starts in a row. The setups share that process's
 * `globalThis` (each project imports its setup files through a module runner of its own, so a
 * module-level variable would not be shared). Held by a count; the last release stops it.
 */
const sharedKey = Symbol.for("pix.test.sharedCluster");

interface Shared {
  cluster: Promise<ThrowawayCluster>;
  users: number;
}

export interface ClusterLease {
  adminUrl: string;
  /** Gives the cluster back; the last lease released stops it and removes its files. */
  release(): Promise<void>;
}

export async function leaseTestCluster(): Promise<ClusterLease> {
  const holder = globalThis as { [sharedKey]?: Shared };
  const shared = (holder[sharedKey] ??= { cluster: startThrowawayCluster(), users: 0 });
  shared.users++;
  let cluster: ThrowawayCluster;
  try {
    cluster = await shared.cluster;
  } catch (error) {
    // A start that failed is not kept: the next setup tries again.
    shared.users--;
    if (holder[sharedKey] === shared) delete holder[sharedKey];
    throw error;
  }
  let released = false;
  return {
    adminUrl: cluster.adminUrl,
    async release() {
      if (released) return;
      released = true;
      shared.users--;
      if (shared.users > 0) return;
      if (holder[sharedKey] === shared) delete holder[sharedKey];
      await cluster.stop();
    },
  };
}
