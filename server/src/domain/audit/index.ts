export * from "./log.js";
export * from "./model.js";
export * from "./write.js";
