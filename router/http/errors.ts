import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { failure } from "../rpc/envelope.js";
import { RpcError } from "../rpc/errors.js";

/**
 * The body-parser failures a client caused, by their `type`, with the status and the message it gets.
 * Everything else is the router's fault: a generic 500 whose text says nothing about the code (the log has it).
 */
const CLIENT_FAULTS: Record<string, { status: number; message: (maxBodyBytes: number) => string }> = {
  "entity.too.large": { status: 413, message: (max) => `request body exceeds limits.maxBodyBytes (${max} bytes)` },
  "encoding.unsupported": { status: 415, message: () => "unsupported Content-Encoding" },
  "charset.unsupported": { status: 415, message: () => "unsupported charset" },
  "request.aborted": { status: 400, message: () => "request body was aborted" },
  "request.size.invalid": { status: 400, message: () => "request body length does not match Content-Length" },
  "entity.parse.failed": { status: 400, message: () => "request body is not valid JSON" },
  "entity.verify.failed": { status: 400, message: () => "request body was refused" },
  "stream.encoding.set": { status: 500, message: () => "the router could not read the request" },
};

/** The last route: any path or method nothing answered gets 404 JSON (never express's HTML page). */
export function jsonNotFound() {
  return (req: Request, res: Response): void => {
    res.status(404).json({ error: `not found: ${req.method} ${req.path}` });
  };
}

/**
 * The error handler: body-parser errors become their status (413, 415, 400) with a JSON-RPC error body, and
 * anything else a generic 500. No error text, stack or path from the code reaches the client.
 */
export function jsonErrors(logger: Logger, maxBodyBytes: number) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const type = (err as { type?: unknown } | null)?.type;
    const fault = typeof type === "string" ? CLIENT_FAULTS[type] : undefined;
    if (!fault || fault.status >= 500) logger.error({ err }, "request failed");
    if (res.headersSent) return void res.destroy();
    const status = fault?.status ?? 500;
    const message = fault ? fault.message(maxBodyBytes) : "the router could not complete the request";
    const error = status >= 500 ? RpcError.internal(message) : RpcError.invalidRequest(message);
    res.status(status).json(failure(null, error.toJSON()));
  };
}
