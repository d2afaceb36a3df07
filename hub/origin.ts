import type { IncomingMessage } from "node:http";
import { isLoopback } from "../router/config/config.js";
import { normalizeOrigin } from "../router/http/origin.js";

export { normalizeOrigin };

/**
 * Whether an upgrade may proceed given its `Origin` header (CONTRACT 12): agents (SDK, scripts) send none;
 * a browser page may connect only from the router's own origin (the host it addressed) or a listed one,
 * so a page elsewhere cannot register agents or take the router's tasks through a visitor's browser.
 */
export function originAllowed(req: IncomingMessage, allowed: ReadonlySet<string>, loopbackBind = false): boolean {
  const header = req.headers.origin;
  if (header === undefined) return true;
  const origin = normalizeOrigin(header);
  if (!origin) return false;
  if (allowed.has(origin)) return true;
  const host = req.headers.host;
  if (!host) return false;
  // On a loopback bind only a loopback Host is "own": a page on another name that resolves to 127.0.0.1
  // (DNS rebinding) must not count as the router's origin (the same rule as the HTTP edge, router/http/cors.ts).
  if (loopbackBind && !isLoopback(new URL(origin).hostname)) return false;
  return origin === normalizeOrigin(`http://${host}`) || origin === normalizeOrigin(`https://${host}`);
}
