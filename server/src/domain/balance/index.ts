export * from "./balance.js";
export * from "./dashboard.js";
export * from "./payouts.js";
export * from "./present.js";
export * from "./rules.js";
export * from "./transfers.js";
export * from "./withdrawals.js";
