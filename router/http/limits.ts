import type { Server, Socket } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { refuse } from "./refusal.js";

/** Paths an over-limit connection is still served on: liveness must not depend on spare capacity. */
const ALWAYS_SERVED = new Set(["/healthz"]);

/** Connections accepted past `maxConnections` (they are answered 503, or /healthz) before new ones are cut outright. */
export function connectionHeadroom(maxConnections: number): number {
  return Math.max(16, Math.ceil(maxConnections / 100));
}

/**
 * The default bound on one client address's connections: half of maxConnections, so one address (one host, or
 * one NAT) can never take more than half the router and the other half stays for everyone else. Behind a
 * proxy every connection comes from the proxy's address: raise it to maxConnections there.
 */
export function defaultConnectionsPerAddress(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 2));
}

/** Which bound a marked connection is past, named in its 503. */
const overLimit = new WeakMap<Socket, "limits.maxConnections" | "limits.maxConnectionsPerAddress">();

/** True for a connection accepted past `limits.maxConnections` or its address's `limits.maxConnectionsPerAddress`. */
export function isOverLimit(socket: Socket | undefined): boolean {
  return socket !== undefined && overLimit.has(socket);
}

/** The text of an over-limit connection's 503. */
function overLimitMessage(socket: Socket | undefined): string {
  const bound = (socket && overLimit.get(socket)) ?? "limits.maxConnections";
  return bound === "limits.maxConnections"
    ? "too many open connections (limits.maxConnections); retry later"
    : "too many open connections from this address (limits.maxConnectionsPerAddress); retry later";
}

/**
 * Counts open TCP connections, in all and per client address. Up to `max` in all, and `perAddress` from one
 * address, they are served normally. The next ones, up to a small headroom (`connectionHeadroom` of each
 * bound), are marked: each request on them is answered 503 with `Connection: close`, except `/healthz`, so a
 * health check still gets through when the router (or that address) is full. Past the headroom, connections
 * are destroyed at once (the hard bound on sockets and their buffers). With one address held to at most
 * `perAddress` plus its headroom, the rest of `max` stays for the other addresses. Returns the live counts,
 * for tests.
 */
export function limitConnections(
  server: Server,
  max: number,
  perAddress = defaultConnectionsPerAddress(max),
): { open(): number; from(address: string): number } {
  let open = 0;
  // Connections served normally: the ones marked for an address's bound do not take the others' room.
  let served = 0;
  const byAddress = new Map<string, number>();
  const hardMax = max + connectionHeadroom(max);
  const hardPerAddress = perAddress + connectionHeadroom(perAddress);
  server.on("connection", (socket: Socket) => {
    const address = addressOf(socket);
    const mine = byAddress.get(address) ?? 0;
    if (open >= hardMax || mine >= hardPerAddress) return void socket.destroy();
    open++;
    byAddress.set(address, mine + 1);
    const counted = mine < perAddress && served < max;
    if (counted) served++;
    else overLimit.set(socket, served >= max ? "limits.maxConnections" : "limits.maxConnectionsPerAddress");
    socket.once("close", () => {
      open--;
      if (counted) served--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
  });
  return { open: () => open, from: (address) => byAddress.get(address) ?? 0 };
}

/** A socket's peer address, one form per address (an IPv4 client of a dual-stack listener is `::ffff:a.b.c.d`). */
function addressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

/** The first middleware: a request on an over-limit connection gets 503 (or /healthz) and the connection closes. */
export function overLimitGate() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isOverLimit(req.socket)) return next();
    res.set("Connection", "close");
    if (ALWAYS_SERVED.has(req.path)) return next();
    res.set("Retry-After", "1");
    refuse(req, res, "overloaded", overLimitMessage(req.socket));
  };
}

/** The raw answer for an upgrade request on an over-limit connection (no express there). */
export function rejectUpgradeOverLimit(socket: Socket | { write(s: string): unknown; destroy(): unknown }): void {
  const body = JSON.stringify({ error: overLimitMessage(socket as Socket) });
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
