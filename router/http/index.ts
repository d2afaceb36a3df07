/** The express adapter: the HTTP surface of the contract over the dispatcher. */
export { createApp, type AppDeps } from "./app.js";
export { apiKeyGuard, callerOf, KeyRing, type Caller } from "./auth.js";
export { AuthFailureLimiter } from "./auth-limiter.js";
export { requestOrigin } from "./origin.js";
