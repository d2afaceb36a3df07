import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { isOpenAiPath, refuse, type Refusal } from "./refusal.js";

/**
 * The body-parser failures a client caused, by their `type`, with the status and the message it gets.
 * Everything else is the router's fault: a generic 500 whose text says nothing about the code (the log has it).
 */
const CLIENT_FAULTS: Record<string, { refusal: Refusal; status?: number; message: (maxBodyBytes: number) => string }> = {
  "entity.too.large": { refusal: "too-large", message: (max) => `request body exceeds limits.maxBodyBytes (${max} bytes)` },
  "encoding.unsupported": { refusal: "bad-request", status: 415, message: () => "unsupported Content-Encoding" },
  "charset.unsupported": { refusal: "bad-request", status: 415, message: () => "unsupported charset" },
  "request.aborted": { refusal: "bad-request", message: () => "request body was aborted" },
  "request.size.invalid": { refusal: "bad-request", message: () => "request body length does not match Content-Length" },
  "entity.parse.failed": { refusal: "bad-request", message: () => "request body is not valid JSON" },
  "entity.verify.failed": { refusal: "bad-request", message: () => "request body was refused" },
};

/**
 * A body that its Content-Encoding cannot decode (not gzip data under `gzip`, ...): body-parser passes zlib's
 * own error on, marked as a client's (`expose`, status 400) but with no `type`. It is the client's fault.
 */
function undecodable(err: unknown, req: Request): (typeof CLIENT_FAULTS)[string] | undefined {
  const e = err as { expose?: unknown; status?: unknown } | null;
  const encoding = req.get("content-encoding");
  if (e?.expose !== true || e.status !== 400 || !encoding || /^identity$/i.test(encoding)) return undefined;
  return { refusal: "bad-request", message: () => `request body could not be decoded as Content-Encoding ${encoding.trim().slice(0, 40)}` };
}

/** The last route: any path or method nothing answered gets 404 JSON (never express's HTML page). */
export function jsonNotFound() {
  return (req: Request, res: Response): void => {
    if (isOpenAiPath(req.path)) return refuse(req, res, "not-found", `not found: ${req.method} ${req.path}`);
    res.status(404).json({ error: `not found: ${req.method} ${req.path}` });
  };
}

/**
 * The error handler: body-parser errors become their status (413, 415, 400) with a JSON error body, and
 * anything else a generic 500. No error text, stack or path from the code reaches the client.
 */
export function jsonErrors(logger: Logger, maxBodyBytes: number) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const type = (err as { type?: unknown } | null)?.type;
    const fault = (typeof type === "string" ? CLIENT_FAULTS[type] : undefined) ?? undecodable(err, req);
    if (!fault) logger.error({ err }, "request failed");
    if (res.headersSent) return void res.destroy();
    if (fault) return refuse(req, res, fault.refusal, fault.message(maxBodyBytes), fault.status);
    refuse(req, res, "internal", "the router could not complete the request");
  };
}
