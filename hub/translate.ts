import { artifactFromV01, messageToV01, messageToV10, partFromV01, partFromV10, type V01Part, type V10Part } from "../router/dialects/index.js";
import { TEXT_KIND_KEY, type AgentUpdate, type Message, type Part, type TextKind } from "../router/core/model.js";
import { HubRefusal } from "./wire/errors.js";
import {
  isLegacyPart,
  wireText,
  type LegacyWirePart,
  type ArtifactParams,
  type HubProtocol,
  type StatusParams,
  type WireMessage,
  type WirePart,
} from "./wire/frames.js";

const TEXT_KINDS: ReadonlySet<unknown> = new Set<TextKind>(["delta", "snapshot", "progress"]);

/**
 * A part as an agent sent it: protocol 1 frames carry v0.1 parts (`type`; agents written against v0.3 send
 * `kind`), protocol 2 frames A2A v1.0's (`{text}`, `{raw}`, `{url}`, `{data}`); the models are told apart by
 * `type`/`kind`, so either protocol's agent may send either.
 */
function part(p: WirePart): Part {
  // A part with none of v1.0's members is read as the first protocol always read it: a text part.
  if (!isLegacyPart(p) && (p.text !== undefined || p.raw !== undefined || p.url !== undefined || "data" in p)) return partFromV10(p as V10Part);
  const legacy = p as LegacyWirePart;
  const type = legacy.kind ?? legacy.type ?? "text";
  if (type === "data" && (typeof legacy.data !== "object" || legacy.data === null || Array.isArray(legacy.data))) {
    throw HubRefusal.invalidParams("a data part's data must be an object (or send a v1.0 part, {data})", "parts");
  }
  // Copied only when its type must be filled in from `kind` or the default.
  return partFromV01(legacy.type !== undefined && legacy.kind === undefined ? (legacy as V01Part) : ({ ...legacy, type } as V01Part));
}

export function messageFromWire(m: WireMessage): Message {
  return {
    role: m.role === "user" || m.role === "ROLE_USER" ? "user" : "agent",
    parts: m.parts.map(part),
    ...(typeof m.messageId === "string" && m.messageId !== "" && { messageId: m.messageId }),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

/**
 * The message as `task.execute` sends it: protocol 1, the v0.1 shape (parts with `type`); protocol 2, the
 * whole A2A v1.0 message, its ids (messageId, taskId, contextId), referenceTaskIds and extensions included.
 */
export function messageToWire(m: Message, protocol: HubProtocol = 1, scope: { taskId: string; contextId: string } = { taskId: "", contextId: "" }) {
  return protocol === 2 ? messageToV10(m, scope) : messageToV01(m);
}

/**
 * What a non-final `task.status` text is (CONTRACT section 9): the kind the agent named, when it named a
 * valid one (the SDK's `ctx.status` says "progress"); else progress when it carries the first round's mark
 * (`metadata.progress: true`, which agents written before `textKind` send); else a chunk of the answer, "delta".
 */
export function streamedTextKind(p: StatusParams): TextKind {
  const named = p.metadata?.[TEXT_KIND_KEY];
  if (TEXT_KINDS.has(named)) return named as TextKind;
  return p.metadata?.progress === true ? "progress" : "delta";
}

/**
 * A status update as the engine takes it. A status that carries a message names its text's kind in the
 * event metadata (`textKind`), next to whatever metadata the agent sent (cost, progress, ...).
 */
export function statusUpdate(p: StatusParams, final: boolean, textKind: TextKind): AgentUpdate {
  const metadata = p.status.message ? { ...p.metadata, [TEXT_KIND_KEY]: textKind } : p.metadata;
  return {
    kind: "status",
    status: { state: p.status.state as never, ...(p.status.message && { message: messageFromWire(p.status.message) }) },
    final,
    ...(metadata && { metadata }),
  };
}

export function artifactUpdate(p: ArtifactParams): AgentUpdate {
  const { append, lastChunk, artifactId, ...artifact } = p.artifact;
  return {
    kind: "artifact",
    artifact: { ...artifactFromV01({ ...artifact, parts: [] }), ...(artifactId && { artifactId }), parts: artifact.parts.map(part) },
    ...(append !== undefined && { append }),
    ...(lastChunk !== undefined && { lastChunk }),
    ...(p.metadata && { metadata: p.metadata }),
  };
}

export function hasText(m: WireMessage | undefined): boolean {
  return wireText(m).length > 0;
}
