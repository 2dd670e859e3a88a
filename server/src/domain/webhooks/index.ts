export * from "./audited.js";
export * from "./dashboard.js";
export * from "./endpoints.js";
export * from "./events.js";
export * from "./present.js";
