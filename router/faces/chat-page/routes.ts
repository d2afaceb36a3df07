/**
 * `GET /chat`: the built-in chat page. Static files (HTML, CSS, ES modules) served from their source folder
 * in the package (no bundler, no copy step), plus the compiled reply reader (dist/router/core/reply.js, which
 * has no runtime imports) as `/chat/reply.js`, so the page renders with the same rules as every other face,
 * and the browser builds of marked and DOMPurify (runtime dependencies) under `/chat/vendor/`.
 * The page talks to the router through `/agents`, `/api/chat` and `/rpc` like any other client.
 */
import express, { type Express } from "express";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { packageRoot } from "../../schema/paths.js";

/** Where the page's files live in the package (listed in package.json "files"). */
export function chatPageDir(): string {
  return join(packageRoot(), "router", "faces", "chat-page", "static");
}

/** The compiled reply reader the page imports. */
export function replyReaderFile(): string {
  return join(packageRoot(), "dist", "router", "core", "reply.js");
}

/**
 * The libraries the page imports, by their name under `/chat/vendor/`, resolved the way Node finds this
 * package's dependencies (beside it when a2a-router is installed, not in ./node_modules of the cwd).
 * Each is a self-contained ES module; its source map sits beside it.
 */
export function vendorFiles(): Record<string, string> {
  const require = createRequire(import.meta.url);
  // marked's only export is its ES build, lib/marked.esm.js.
  const marked = require.resolve("marked");
  // dompurify's `require` export is dist/purify.cjs.js; the ES build is its neighbour.
  const purify = join(dirname(require.resolve("dompurify")), "purify.es.mjs");
  return { "marked.esm.js": marked, "marked.esm.js.map": `${marked}.map`, "purify.es.mjs": purify, "purify.es.mjs.map": `${purify}.map` };
}

/** Mounts `/chat` (the page) and its assets under `/chat/`. */
export function mountChatPage(app: Express): void {
  const dir = chatPageDir();
  // The page must be fresh after an upgrade; the files are small, so revalidating costs little.
  const assets = express.static(dir, { index: false, maxAge: 0, fallthrough: true });
  app.get(["/chat", "/chat/"], (_req, res) => res.sendFile(join(dir, "index.html")));
  app.get("/chat/reply.js", (_req, res) => res.type("text/javascript").sendFile(replyReaderFile()));
  for (const [name, file] of Object.entries(vendorFiles())) {
    const type = name.endsWith(".map") ? "application/json" : "text/javascript";
    app.get(`/chat/vendor/${name}`, (_req, res) => res.type(type).sendFile(file));
  }
  app.use("/chat", (req, res, next) => (req.method === "GET" || req.method === "HEAD" ? assets(req, res, next) : next()));
}
