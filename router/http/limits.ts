import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { refuse } from "./refusal.js";

/** Paths an over-limit connection is still served on: liveness must not depend on spare capacity. */
const ALWAYS_SERVED = new Set(["/healthz"]);

/** Connections accepted past `maxConnections` (they are answered 503, or /healthz) before new ones are cut outright. */
export function connectionHeadroom(maxConnections: number): number {
  return Math.max(16, Math.ceil(maxConnections / 100));
}

const overLimit = new WeakSet<Socket>();

/** True for a connection accepted past `limits.maxConnections`. */
export function isOverLimit(socket: Socket | undefined): boolean {
  return socket !== undefined && overLimit.has(socket);
}

/**
 * Counts open TCP connections. Up to `max` they are served normally. The next ones, up to a small headroom
 * (`connectionHeadroom`), are marked: each request on them is answered 503 with `Connection: close`, except
 * `/healthz`, so a health check still gets through when the router is full. Past the headroom, connections
 * are destroyed at once (the hard bound on sockets and their buffers). Returns the live count, for tests.
 */
export function limitConnections(server: Server, max: number): { open(): number } {
  let open = 0;
  const hardMax = max + connectionHeadroom(max);
  server.on("connection", (socket: Socket) => {
    if (open >= hardMax) return void socket.destroy();
    open++;
    if (open > max) overLimit.add(socket);
    socket.once("close", () => open--);
  });
  return { open: () => open };
}

/** The first middleware: a request on an over-limit connection gets 503 (or /healthz) and the connection closes. */
export function overLimitGate() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isOverLimit(req.socket)) return next();
    res.set("Connection", "close");
    if (ALWAYS_SERVED.has(req.path)) return next();
    res.set("Retry-After", "1");
    refuse(req, res, "overloaded", "too many open connections (limits.maxConnections); retry later");
  };
}

/** The raw answer for an upgrade request on an over-limit connection (no express there). */
export function rejectUpgradeOverLimit(socket: Socket | { write(s: string): unknown; destroy(): unknown }): void {
  const body = JSON.stringify({ error: "too many open connections (limits.maxConnections); retry later" });
  socket.write(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroy();
}

/**
 * Bytes of request bodies being read at once (`limits.bodyBytesInFlight`). Each request with a body reserves
 * its Content-Length (capped by maxBodyBytes; a chunked body reserves maxBodyBytes, its worst case) before any
 * of it is read and gives it back once the body is read or the exchange ends. A request that does not fit gets
 * 503 with Retry-After: memory held by bodies stays bounded whatever the clients send. One request alone is
 * always let through, so a budget below maxBodyBytes cannot starve every large body.
 */
export function bodyBudget(limit: number, maxBodyBytes: number) {
  let inFlight = 0;
  const gate = (req: Request, res: Response, next: NextFunction): void => {
    const length = req.get("content-length");
    const chunked = req.get("transfer-encoding") !== undefined;
    if (!chunked && (length === undefined || length === "0")) return next();
    const declared = Number(length);
    // A compressed body is inflated up to maxBodyBytes whatever its Content-Length: reserve the worst case.
    const encoded = !/^(identity)?$/i.test(req.get("content-encoding") ?? "");
    const want = Math.min(chunked || encoded || !Number.isFinite(declared) ? maxBodyBytes : declared, maxBodyBytes);
    if (inFlight > 0 && inFlight + want > limit) {
      res.set("Retry-After", "1");
      res.set("Connection", "close");
      return afterBody(req, want, () => refuse(req, res, "overloaded", "too many request bodies in flight (limits.bodyBytesInFlight); retry later"));
    }
    inFlight += want;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      inFlight -= want;
      // A stream's request lives for hours after its body is read: it keeps no listener of ours.
      req.off("end", release);
      req.off("close", release);
      res.off("close", release);
    };
    req.once("end", release);
    req.once("close", release);
    res.once("close", release);
    next();
  };
  return Object.assign(gate, { inFlight: () => inFlight });
}

/**
 * Runs `answer` once the request's body has been read and dropped (nothing of it is kept), or at once past
 * `bound` bytes. Closing a connection whose client is still sending makes the kernel reset it, and the client
 * then sees EPIPE or ECONNRESET instead of the answer; read to its end, the body leaves nothing unread behind
 * the answer and the close is clean. The bound is what the request reserved (its Content-Length, at most
 * maxBodyBytes), so a refused client costs time on its own connection, never memory.
 */
function afterBody(req: Request, bound: number, answer: () => void): void {
  if (req.complete) return answer();
  let seen = 0;
  let answered = false;
  const once = (): void => {
    if (answered) return;
    answered = true;
    req.off("data", count);
    answer();
  };
  const count = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen > bound) once();
  };
  req.on("data", count);
  req.once("end", once);
  // The client went away: there is no one left to answer.
  req.once("close", () => req.off("data", count));
}
