/** The express adapter: the HTTP surface of the contract over the dispatcher. */
export { createApp, type AppDeps } from "./app.js";
