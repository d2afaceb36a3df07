import type { IncomingMessage } from "node:http";

/** An origin in the form browsers send it (`scheme://host[:port]`, default port dropped), or undefined. */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an upgrade may proceed given its `Origin` header (CONTRACT 12): agents (SDK, scripts) send none;
 * a browser page may connect only from the router's own origin (the host it addressed) or a listed one,
 * so a page elsewhere cannot register agents or take the router's tasks through a visitor's browser.
 */
export function originAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const header = req.headers.origin;
  if (header === undefined) return true;
  const origin = normalizeOrigin(header);
  if (!origin) return false;
  if (allowed.has(origin)) return true;
  const host = req.headers.host;
  if (!host) return false;
  return origin === normalizeOrigin(`http://${host}`) || origin === normalizeOrigin(`https://${host}`);
}
