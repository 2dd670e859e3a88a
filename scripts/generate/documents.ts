// The documents `npm run generate` writes, and where each comes from.

/**
 * The documents we emit. One TypeSpec program holds the three services; the emitter writes one file
 * per service (`{service-name-if-multiple}.openapi.yaml`).
 */
export const documents = [
  {
    name: "public",
    emitted: "PixService.openapi.yaml",
    openapi: "openapi.yaml",
    types: "api.d.ts",
    operations: "operations.ts",
    validators: "request-validators.ts",
    /** Every public operation must declare its key permission. */
    permissions: true,
    /** Partners call it: its servers are marked `x-internal: false`. */
    internal: false,
  },
  {
    name: "admin",
    emitted: "PixAdmin.openapi.yaml",
    openapi: "admin-openapi.yaml",
    types: "admin-api.d.ts",
    operations: "admin-operations.ts",
    validators: "admin-request-validators.ts",
    /** Operator routes are all behind the one ADMIN_TOKEN. */
    permissions: false,
    /** Operators only: its servers are marked `x-internal: true`. */
    internal: true,
  },
  {
    name: "dashboard",
    emitted: "PixDashboard.openapi.yaml",
    openapi: "dashboard-openapi.yaml",
    types: "dashboard-api.d.ts",
    operations: "dashboard-operations.ts",
    validators: "dashboard-request-validators.ts",
    /** A session, not a key: each operation names the roles it admits (`x-roles`) instead. */
    permissions: false,
    /** Merchants' people call it from the dashboard: its servers are marked `x-internal: false`. */
    internal: false,
    /** Its operations without a session (sign-up, log-in) are bound too, and each declares `x-roles`. */
    roles: true,
  },
] as const;
