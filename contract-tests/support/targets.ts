/** One system the contract suite runs against. */
export interface Target {
  name: string;
  baseUrl: string;
  /** True for a real implementation: state and exact codes are asserted; false for the mock. */
  real: boolean;
  keys: {
    /** A test key with every permission. */
    full: string;
    /** A test key with no permission at all. */
    none: string;
    /** A production key of a verified account. */
    live: string;
  };
  /** The merchant dashboard's document (generated/dashboard-openapi.yaml) on this target. */
  dashboard: {
    /** Where it answers: the server itself, or the mock's own Prism. */
    baseUrl: string;
    /**
     * A viewer's session (the least role) in an account, and its CSRF token: what the operations
     * whose `x-roles` leave viewers out refuse. Any well-formed value on the mock.
     */
    viewer: { token: string; csrf: string };
    /**
     * The person's mailbox on a real target: `GET <mailbox>?to=<address>` answers `{ token }`, the
     * token of the last e-mail link sent there (the confirmation at sign-up), as the person reads
     * it in the message. None on the mock, which takes its document's example token.
     */
    mailbox?: string;
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    targets: Target[];
    /** `prism proxy --errors` in front of the target named `upstream`. */
    proxy: { baseUrl: string; upstream: string };
    /** Free ports for tests that start their own processes. */
    ports: { fakeUpstream: number; fakeProxy: number };
    /** The PostgreSQL server the run's databases are made in (null: none); a second run may share it. */
    postgresAdminUrl: string | null;
  }
}
