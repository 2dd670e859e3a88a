export * from "./accounts.js";
export * from "./merchant-identity.js";
export * from "./profile.js";
export * from "./verification.js";
