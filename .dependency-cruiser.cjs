// The import rules of the house (docs/architecture.md, "Rooms"), checked by
// server/test/architecture.test.ts through dependency-cruiser's API and by `npx depcruise`.
const features = "(audit|accounts|identity|webhooks|balance|keys|payments|bank|reports|notices|request-logs|operator)";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No file reaches itself again through its imports, type-only imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "feature-through-index",
      comment:
        "A domain feature is entered through its index.ts; only its records (model.ts) are shared directly. " +
        "Inside a feature, files import each other freely.",
      severity: "error",
      from: { path: `^server/src/domain/${features}/` },
      to: {
        path: `^server/src/domain/${features}/`,
        pathNot: ["^server/src/domain/$1/", `^server/src/domain/${features}/(index|model)[.]ts$`],
      },
    },
    {
      name: "outside-through-index",
      comment: "Code outside the domain enters a domain feature through its index.ts (or reads its records).",
      severity: "error",
      from: { path: "^(server|scripts|bench|contract-tests)/", pathNot: "^server/src/domain/" },
      to: {
        path: `^server/src/domain/${features}/`,
        pathNot: `^server/src/domain/${features}/(index|model)[.]ts$`,
      },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|generated)/" },
  },
};
