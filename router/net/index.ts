/** Network facts shared by the HTTP layer and the hub: origins, loopback names, client addresses. */
export { clientAddress, isLoopback, isOwnOrigin, normalizeOrigin, originSources, type OriginPolicy, type OriginSources } from "./origin.js";
export { keyOf } from "./credentials.js";
export { drained } from "./drained.js";
