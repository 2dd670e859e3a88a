import type { DomainDeps } from "../deps.js";

/** Whether this process can serve: its store answers (a lost database throws SERVICE_UNAVAILABLE). */
export function healthUseCases(deps: DomainDeps) {
  return {
    ready: (): Promise<void> => deps.store.ping(),
  };
}
