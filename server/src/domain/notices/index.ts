export * from "./messages.js";
export * from "./model.js";
export * from "./preferences.js";
export * from "./sending.js";
