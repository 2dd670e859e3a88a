export * from "./operator.js";
export * from "./presenters.js";
export * from "./settlement.js";
