// The documents `npm run generate` writes, and where each comes from.

/**
 * The documents we emit. One TypeSpec program holds both services; the emitter writes one file
 * per service (`{service-name-if-multiple}.openapi.yaml`).
 */
export const documents = [
  {
    name: "public",
    emitted: "PixService.openapi.yaml",
    openapi: "openapi.yaml",
    types: "api.d.ts",
    operations: "operations.ts",
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
    /** Operator routes are all behind the one ADMIN_TOKEN. */
    permissions: false,
    /** Operators only: its servers are marked `x-internal: true`. */
    internal: true,
  },
] as const;
