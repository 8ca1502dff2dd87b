export * from "./catalogue.js";
export * from "./diagnostic.js";
export * from "./format.js";
