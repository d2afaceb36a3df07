import type { DialectName, LoggedEvent, Task } from "../core/model.js";
import type { Dialect, Operation } from "./shared/dialect.js";
import type { PushBody } from "./shared/push-body.js";
import type { UpstreamProtocol } from "./shared/upstream-protocol.js";
import type { ClientCodec } from "./shared/client-codec.js";
import { v01, v01Codec, v01PushBody, v01Upstream } from "./v01/index.js";
import { v03, v03Codec, v03PushBody, v03Upstream } from "./v03/index.js";
import { v10, v10Codec, v10GrpcCodec, v10GrpcUpstream, v10PushBody, v10RestCodec, v10RestUpstream, v10Upstream } from "./v10/index.js";
import type { UpstreamBinding } from "./shared/card-endpoint.js";

/**
 * The A2A dialects, one folder each (v01/, v03/, v10/), every folder holding that dialect's whole wire
 * format: wire shapes and their translation to the internal model, the client side (its JSON-RPC methods:
 * params in, results and events out), the agent side (the client of an upstream agent of that dialect),
 * its client codec (codec.ts: what a client sends and how it reads the answers, used by the router's
 * upstream connector and the CLI), its push payload and its card members. shared/ holds the two contracts (Dialect, UpstreamProtocol) and
 * what several dialects use. This file names what the folder offers.
 */

/** Every dialect the router speaks. Add a dialect here and its methods are served on every endpoint. */
export const DIALECTS: readonly Dialect[] = [v01, v03, v10];

export function dialectByName(name: DialectName): Dialect {
  const d = DIALECTS.find((x) => x.name === name);
  if (!d) throw new Error(`dialect ${name} is not available`);
  return d;
}

export interface MethodBinding {
  operation: Operation;
  /** Dialects that name this method; more than one means "the dialect the task was created in". */
  dialects: Dialect[];
}

const BINDINGS = new Map<string, MethodBinding>();
for (const dialect of DIALECTS) {
  for (const [method, operation] of Object.entries(dialect.methods)) {
    const binding = BINDINGS.get(method);
    if (binding) binding.dialects.push(dialect);
    else BINDINGS.set(method, { operation, dialects: [dialect] });
  }
}

export function bindMethod(method: string): MethodBinding | undefined {
  return BINDINGS.get(method);
}

/** Upstream clients by dialect, over JSON-RPC; add a dialect's agent side here. */
export const UPSTREAM_PROTOCOLS: Readonly<Record<DialectName, UpstreamProtocol>> = {
  "v0.1": v01Upstream,
  "v0.3": v03Upstream,
  "v1.0": v10Upstream,
};

/** Upstream clients over the HTTP+JSON binding, for the dialects that define one the router speaks. */
export const UPSTREAM_REST_PROTOCOLS: Readonly<Partial<Record<DialectName, UpstreamProtocol>>> = {
  "v1.0": v10RestUpstream,
};

/** Upstream clients over the gRPC binding, for the dialects that define one the router speaks. */
export const UPSTREAM_GRPC_PROTOCOLS: Readonly<Partial<Record<DialectName, UpstreamProtocol>>> = {
  "v1.0": v10GrpcUpstream,
};

/** The upstream clients of each binding, by dialect. */
const UPSTREAM_BY_BINDING: Readonly<Record<UpstreamBinding, Readonly<Partial<Record<DialectName, UpstreamProtocol>>>>> = {
  JSONRPC: UPSTREAM_PROTOCOLS,
  "HTTP+JSON": UPSTREAM_REST_PROTOCOLS,
  GRPC: UPSTREAM_GRPC_PROTOCOLS,
};

/** Whether the router has a client for an upstream agent speaking `dialect` over `binding`. */
export function speaksUpstream(dialect: DialectName, binding: UpstreamBinding): boolean {
  return UPSTREAM_BY_BINDING[binding][dialect] !== undefined;
}

/** The client of an upstream agent speaking `dialect` over `binding` (JSON-RPC unless said). */
export function upstreamProtocol(dialect: DialectName, binding: UpstreamBinding = "JSONRPC"): UpstreamProtocol {
  const p = UPSTREAM_BY_BINDING[binding][dialect];
  if (!p) throw new Error(`no upstream client for A2A ${dialect} over ${binding}`);
  return p;
}

/** Client codecs by dialect, over JSON-RPC; add a dialect's codec.ts here. */
const CODECS: Readonly<Record<DialectName, ClientCodec>> = { "v0.1": v01Codec, "v0.3": v03Codec, "v1.0": v10Codec };
/** Client codecs of each binding, by dialect: JSON-RPC for every dialect, HTTP+JSON and gRPC for v1.0. */
const CODECS_BY_BINDING: Readonly<Record<UpstreamBinding, Readonly<Partial<Record<DialectName, ClientCodec>>>>> = {
  JSONRPC: CODECS,
  "HTTP+JSON": { "v1.0": v10RestCodec },
  GRPC: { "v1.0": v10GrpcCodec },
};

/** The client codec of `dialect` over `binding` (JSON-RPC unless said), as a card's interface names them. */
export function clientCodec(dialect: DialectName, binding: UpstreamBinding = "JSONRPC"): ClientCodec {
  const c = CODECS_BY_BINDING[binding][dialect];
  if (!c) throw new Error(`no client codec for A2A ${dialect} over ${binding}`);
  return c;
}

/** Push bodies by dialect; add a dialect's push.ts here. */
const PUSH_BODIES: Readonly<Record<DialectName, (event: LoggedEvent, task: Task) => PushBody>> = {
  "v0.1": v01PushBody,
  "v0.3": v03PushBody,
  "v1.0": v10PushBody,
};

/**
 * What a webhook receives for one task update, in the dialect the task was created in (each dialect's
 * push.ts says what and why). `task` is the current snapshot, which v0.3 sends whole.
 */
export function pushPayload(event: LoggedEvent, task: Task): PushBody {
  return (PUSH_BODIES[task.dialect] ?? v01PushBody)(event, task);
}

export type {
  Dialect,
  ListQuery,
  ListRenderOptions,
  Operation,
  OutboundEvent,
  PushRef,
  TaskRef,
} from "./shared/dialect.js";
export {
  A2A_VERSION_HEADER,
  a2aVersionOf,
  assertA2AVersion,
  dialectOfVersion,
  majorMinor,
  requestedA2AVersion,
  SUPPORTED_A2A_VERSIONS,
} from "./shared/a2a-version.js";
export type { StreamPosition, UpstreamIds, UpstreamProtocol } from "./shared/upstream-protocol.js";
export {
  AnswerNotInDialect,
  type ClientCodec,
  type ClientEvent,
  type ClientPushConfig,
  type ClientTask,
  type ListInput,
  type TaskPage,
} from "./shared/client-codec.js";
export { errorInRouterTerms, inRouterTerms, type UpstreamScope } from "./shared/upstream-update.js";
export { A2A_JSON, PLAIN_JSON, type PushBody } from "./shared/push-body.js";
export { bindingOf, type CardEndpoint, type UpstreamBinding } from "./shared/card-endpoint.js";
export { DATA_PART_COMPAT_FLAG, dataValueOf, isRecord } from "./shared/translate-helpers.js";
export { resultSchemaId, type ResultKind } from "./shared/result-schemas.js";
export { taskUpdates } from "./shared/v03-v10.js";
export * from "./v01/index.js";
export * from "./v03/index.js";
export * from "./v10/index.js";
