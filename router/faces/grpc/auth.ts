import type { Metadata, StatusObject } from "@grpc/grpc-js";
import { TaskError } from "../../core/errors.js";
import { keyOf } from "../../net/credentials.js";
import type { Caller } from "../../service/scope.js";
import { FACE_CODES, faceStatus, grpcStatus } from "./errors.js";

/**
 * The client API keys, as the HTTP faces check them: server.ts hands the face the router's key ring
 * (router/http/auth.ts KeyRing) and its one count of failed authentications per address.
 */
export interface GrpcAuth {
  keys: {
    /** True when keys are configured (calls then need one). */
    readonly enabled: boolean;
    /** The caller a presented key stands for, or undefined. */
    identify(presented: string): Caller | undefined;
  };
  /** Failed authentications per client address (shared with HTTP and the hub's upgrade). */
  limiter?: { retryAfterSeconds(address: string): number; fail(address: string): void };
}

/** A call's authentication: the caller (undefined when no keys are configured), or the status refusing it. */
export type AuthOutcome = { caller: Caller | undefined } | { refused: StatusObject };

/**
 * Checks a call's `authorization: Bearer <key>` (or `x-api-key`) metadata against the API keys, as the HTTP
 * guard does (router/http/auth.ts): no keys configured lets every call through; a missing or wrong key is
 * UNAUTHENTICATED and counts against the client's address; an address past `authFailuresPerMinute` is
 * RESOURCE_EXHAUSTED until its minute has passed, even with a valid key.
 */
export function authenticate(auth: GrpcAuth, metadata: Metadata, address: string): AuthOutcome {
  if (!auth.keys.enabled) return { caller: undefined };
  const wait = auth.limiter?.retryAfterSeconds(address);
  if (wait) return { refused: faceStatus(FACE_CODES.tooManyAuthFailures, `too many failed authentications; retry in ${wait} s`) };
  const key = keyOf(text(metadata, "authorization"), text(metadata, "x-api-key"));
  const caller = key === undefined ? undefined : auth.keys.identify(key);
  if (caller) return { caller };
  auth.limiter?.fail(address);
  const reason = key ? "invalid API key" : "missing API key (send metadata authorization: Bearer <key>)";
  return { refused: grpcStatus(TaskError.unauthenticated(reason)) };
}

/** The first value of a text metadata key. */
export function text(metadata: Metadata, key: string): string | undefined {
  const v = metadata.get(key)[0];
  return typeof v === "string" ? v : undefined;
}

/** The client's address from a gRPC peer (`1.2.3.4:5678`, `[::1]:5678`, `ipv4:...`), for the failure count. */
export function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, "");
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(bare) ?? /^([^:]+)(?::\d+)?$/.exec(bare);
  const address = m ? m[1]! : bare;
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}
