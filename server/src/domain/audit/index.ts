export * from "./log.js";
export * from "./model.js";
