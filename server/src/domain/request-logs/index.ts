export * from "./masking.js";
export * from "./model.js";
export * from "./recording.js";
