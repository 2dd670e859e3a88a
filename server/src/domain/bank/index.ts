export * from "./certificates.js";
export * from "./charges-at-bank.js";
export * from "./connection.js";
export * from "./model.js";
export * from "./received.js";
export * from "./reconcile.js";
export * from "./refunds-at-bank.js";
export * from "./sealed-secrets.js";
