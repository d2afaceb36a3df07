/**
 * The hub's wire, shared by the router's hub (hub/) and the agent SDK (agents/sdk): frames, their builders and
 * the one table of error codes.
 */
export * from "./errors.js";
export * from "./frames.js";
