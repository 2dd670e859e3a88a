export * from "./exports.js";
export * from "./home-figures.js";
