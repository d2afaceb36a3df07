import { TEXT_KIND_KEY, TURN_END_STATES, type AgentUpdate, type Message, type Metadata, type Part, type TextKind } from "../../core/model.js";
import type { UpstreamIds } from "./upstream-protocol.js";

/**
 * An upstream agent's update in the router's terms, whatever the dialect it came in (CONTRACT 9):
 *
 * - Ids: a client sees the router's task and context ids only. A v0.3/v1.0 agent makes its own ids and
 *   writes them into its messages (`taskId`, `contextId`) and, often, its metadata; a message loses them
 *   here (every renderer scopes it to the router's task), and an artifactId, metadata or data value that
 *   is exactly one of the upstream's ids becomes the router's. Free text is the agent's own words and is
 *   left alone.
 * - Text kind: every status with a message says what its text is to the answer under `textKind`. A
 *   turn-ending status is the answer ("snapshot"); a non-final one is the dialect's `workingTextKind`
 *   (a v0.1 agent's chunks extend the answer, a v0.3/v1.0 agent's `working` lines are progress), unless
 *   the agent named a valid kind itself (an a2a-router upstream knows its own agents' kinds).
 */
export interface UpstreamScope {
  /** The router's task id. */
  taskId: string;
  /** The router's context id. */
  contextId: string;
  /** The upstream's ids for the same task and context, as far as learned. */
  upstream: UpstreamIds;
  workingTextKind: TextKind;
}

const TEXT_KINDS: ReadonlySet<unknown> = new Set<TextKind>(["delta", "snapshot", "progress"]);

/** The update with upstream ids replaced by the router's and its status text kind named. */
export function inRouterTerms(update: AgentUpdate, scope: UpstreamScope): AgentUpdate {
  const ids = idMap(scope);
  if (update.kind === "artifact") {
    const { artifact } = update;
    return {
      ...update,
      artifact: {
        ...artifact,
        artifactId: ids.get(artifact.artifactId) ?? artifact.artifactId,
        parts: artifact.parts.map((p) => partInRouterTerms(p, ids)),
        ...(artifact.metadata && { metadata: rewrite(artifact.metadata, ids) }),
      },
      ...(update.metadata && { metadata: rewrite(update.metadata, ids) }),
    };
  }
  const { status } = update;
  const metadata = update.metadata && rewrite(update.metadata, ids);
  if (!status.message) return { ...update, ...(metadata && { metadata }) };
  const final = update.final === true || TURN_END_STATES.has(status.state);
  const own = metadata?.[TEXT_KIND_KEY];
  const textKind: TextKind = final ? "snapshot" : TEXT_KINDS.has(own) ? (own as TextKind) : scope.workingTextKind;
  return {
    ...update,
    status: { ...status, message: messageInRouterTerms(status.message, ids) },
    metadata: { ...metadata, [TEXT_KIND_KEY]: textKind },
  };
}

/**
 * An upstream failure in the router's terms: an upstream id its message quotes (an agent's "Task not found:
 * <its id>") is replaced by the router's. The error itself is kept (its class says what failed); only its
 * message changes.
 */
export function errorInRouterTerms(err: unknown, scope: Pick<UpstreamScope, "taskId" | "contextId" | "upstream">): unknown {
  if (!(err instanceof Error)) return err;
  let message = err.message;
  // Whole ids only: an agent's short id ("t", "1") must not be replaced inside the words around it.
  for (const [theirs, ours] of idMap(scope)) message = message.replace(wholeId(theirs), () => ours);
  err.message = message;
  return err;
}

/** Where `id` stands in a text as an id of its own: not inside a longer word, number or id. */
function wholeId(id: string): RegExp {
  return new RegExp(`(?<![\\w-])${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`, "g");
}

/** Upstream id -> router id, for the ids that differ. */
function idMap(scope: Pick<UpstreamScope, "taskId" | "contextId" | "upstream">): Map<string, string> {
  const ids = new Map<string, string>();
  const { taskId, contextId } = scope.upstream;
  if (taskId !== undefined && taskId !== scope.taskId) ids.set(taskId, scope.taskId);
  if (contextId !== undefined && contextId !== scope.contextId) ids.set(contextId, scope.contextId);
  return ids;
}

function messageInRouterTerms(m: Message, ids: Map<string, string>): Message {
  const { taskId: _taskId, contextId: _contextId, ...rest } = m;
  return {
    ...rest,
    parts: rest.parts.map((p) => partInRouterTerms(p, ids)),
    ...(rest.metadata && { metadata: rewrite(rest.metadata, ids) }),
  };
}

function partInRouterTerms(p: Part, ids: Map<string, string>): Part {
  const metadata = p.metadata && { metadata: rewrite(p.metadata, ids) };
  if (p.kind === "data") return { ...p, data: rewrite(p.data, ids), ...metadata };
  return { ...p, ...metadata };
}

/** A copy of a JSON object with every string value that is one of `ids` replaced; keys are kept. */
function rewrite<T extends Metadata>(value: T, ids: Map<string, string>): T {
  if (ids.size === 0) return value;
  return rewriteValue(value, ids) as T;
}

function rewriteValue(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === "string") return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => rewriteValue(v, ids));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteValue(v, ids)]));
  }
  return value;
}
