/** The OpenAI Responses face: `/v1/responses` (CONTRACT 15). */
export { mountResponsesFace, type ResponsesFaceDeps } from "./routes.js";
export { createResponseTranslator, type ResponseBase, type ResponseEvent } from "./response-events.js";
export { decodeResponseId, encodeResponseId, type ResponseRef } from "./response-id.js";
