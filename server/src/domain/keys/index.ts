export * from "./audited.js";
export * from "./authentication.js";
export * from "./dashboard.js";
export * from "./ip-rules.js";
export * from "./present.js";
export * from "./rules.js";
