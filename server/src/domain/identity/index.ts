export * from "./mode-caller.js";
export * from "./model.js";
export * from "./passwords.js";
export * from "./second-factor.js";
export * from "./sessions.js";
export * from "./team.js";
export * from "./two-factor.js";
export * from "./users.js";
