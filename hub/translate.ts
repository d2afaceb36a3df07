import { artifactFromV01, messageToV01, partFromV01, type V01Part } from "../router/dialects/index.js";
import { TEXT_KIND_KEY, type AgentUpdate, type Message, type Part, type TextKind } from "../router/core/model.js";
import type { ArtifactParams, StatusParams, WireMessage } from "./protocol.js";

const TEXT_KINDS: ReadonlySet<unknown> = new Set<TextKind>(["delta", "snapshot", "progress"]);

/** Hub frames carry v0.1 parts (`type`); agents written against v0.3 send `kind`, so both are read. */
function part(p: WireMessage["parts"][number]): Part {
  // Copied only when its type must be filled in from `kind` or the default.
  return partFromV01(p.type !== undefined && p.kind === undefined ? (p as V01Part) : { ...p, type: p.kind ?? p.type ?? "text" });
}

export function messageFromWire(m: WireMessage): Message {
  return { role: m.role ?? "agent", parts: m.parts.map(part), ...(m.metadata && { metadata: m.metadata }) };
}

/** The message as `task.execute` sends it: v0.1 shape, parts with `type`. */
export function messageToWire(m: Message) {
  return messageToV01(m);
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
  const { append, lastChunk, ...artifact } = p.artifact;
  return {
    kind: "artifact",
    artifact: { ...artifactFromV01({ ...artifact, parts: [] }), parts: artifact.parts.map(part) },
    ...(append !== undefined && { append }),
    ...(lastChunk !== undefined && { lastChunk }),
    ...(p.metadata && { metadata: p.metadata }),
  };
}

export function hasText(m: WireMessage | undefined): boolean {
  return !!m && m.parts.some((p) => (p.kind ?? p.type ?? "text") === "text" && typeof p.text === "string" && p.text.length > 0);
}
