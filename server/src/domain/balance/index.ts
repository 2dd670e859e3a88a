export * from "./balance.js";
export * from "./dashboard.js";
export * from "./present.js";
export * from "./rules.js";
export * from "./withdrawals.js";
