/** The Vercel AI SDK face: `/api/chat` (UI message stream v1), resume and cancel. */
export { mountAiSdkFace, UI_STREAM_HEADERS, type AiSdkFaceDeps } from "./routes.js";
export { REASON_STATUS } from "./errors.js";
export { createUiChunkReader, type UiChunk, type StatusData } from "./ui-chunks.js";
