/** Every default of the hosted Eliza agent, in one place. */

/** The agent id the router hosts the runtime under (docs/contract.md section 1). */
export const ELIZA_AGENT_ID = "eliza";
/** A turn that takes longer fails with a timeout (the engine's task timeout is the outer bound). */
export const DEFAULT_TURN_TIMEOUT_MS = 300_000;
/** The artifact the model's reply tokens stream into. */
export const REPLY_ARTIFACT_ID = "reply";
/** The message source of A2A requests when `metadata.source` names none (bypasses shouldRespond). */
export const DEFAULT_MESSAGE_SOURCE = "a2a";
/** The skill every Eliza agent card lists first: plain conversation. */
export const CHAT_SKILL_ID = "chat";
