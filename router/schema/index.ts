/** JSON Schemas from schemas/, compiled once; validation issues name the failing field. */
export { SchemaRegistry, describe, type SchemaIssue } from "./validator.js";
export { packageRoot, schemasDir } from "./paths.js";
