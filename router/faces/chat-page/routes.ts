/**
 * `GET /chat`: the built-in chat page. Static files (HTML, CSS, ES modules) served from their source folder
 * in the package (no bundler, no copy step), plus the compiled reply reader (dist/router/core/reply.js, which
 * has no runtime imports) as `/chat/reply.js`, so the page renders with the same rules as every other face.
 * The page talks to the router through `/agents`, `/api/chat` and `/rpc` like any other client.
 */
import express, { type Express } from "express";
import { join } from "node:path";
import { packageRoot } from "../../schema/paths.js";

/** Where the page's files live in the package (listed in package.json "files"). */
export function chatPageDir(): string {
  return join(packageRoot(), "router", "faces", "chat-page", "static");
}

/** The compiled reply reader the page imports. */
export function replyReaderFile(): string {
  return join(packageRoot(), "dist", "router", "core", "reply.js");
}

/** Mounts `/chat` (the page) and its assets under `/chat/`. */
export function mountChatPage(app: Express): void {
  const dir = chatPageDir();
  // The page must be fresh after an upgrade; the files are small, so revalidating costs little.
  const assets = express.static(dir, { index: false, maxAge: 0, fallthrough: true });
  app.get(["/chat", "/chat/"], (_req, res) => res.sendFile(join(dir, "index.html")));
  app.get("/chat/reply.js", (_req, res) => res.type("text/javascript").sendFile(replyReaderFile()));
  app.use("/chat", (req, res, next) => (req.method === "GET" || req.method === "HEAD" ? assets(req, res, next) : next()));
}
