import type { Request } from "express";

/** `scheme://host[:port]` as the client addressed the router (its Host header), if it sent one. */
export function requestOrigin(req: Request): string | undefined {
  const host = req.get("host");
  return host && !/[\s/]/.test(host) ? `${req.protocol}://${host}` : undefined;
}
