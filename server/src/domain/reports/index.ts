export * from "./exports.js";
export * from "./home-figures.js";
export * from "./statement.js";
