/** The OpenAI-compatible face: `/v1/models`, `/v1/chat/completions`. */
export { mountOpenAiFace, type OpenAiFaceDeps } from "./routes.js";
export { REASON_ERRORS, TURN_ERRORS, type OpenAiError } from "../shared/openai-errors.js";
export { createCompletionReader } from "./completion-reader.js";
