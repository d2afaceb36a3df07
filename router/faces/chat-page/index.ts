/** The built-in chat page at `/chat`. */
export { mountChatPage, chatPageDir, replyReaderFile, vendorFiles } from "./routes.js";
