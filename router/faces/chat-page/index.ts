/** The built-in chat page at `/chat`. */
export { mountChatPage, chatPageDir, replyReaderFile } from "./routes.js";
