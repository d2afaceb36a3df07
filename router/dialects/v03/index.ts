/** A2A v0.3: its wire shapes, client side, client codec, agent side, push body and card shape. */
export { v03 } from "./client.js";
export { v03Upstream } from "./agent.js";
export { v03Codec } from "./codec.js";
export { v03PushBody } from "./push.js";
export { v03CardEndpoints, v03CardMembers, V03_CARD_VERSION } from "./card.js";
export * from "./translate.js";
export type * from "./types.js";
