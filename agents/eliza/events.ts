/**
 * Runtime events, as elizaOS names them. A plugin's `events` (`{ MESSAGE_RECEIVED: [handler], ... }`) and
 * `runtime.registerEvent` subscribe; `runtime.emitEvent` calls every handler of the event with the payload
 * plus `runtime`. What this runtime emits, and when (docs/eliza-plugins.md, "Events"):
 * - MESSAGE_RECEIVED `{message, source}`: a user message arrived, before the agent thinks about it;
 * - RUN_STARTED / RUN_ENDED (or RUN_TIMEOUT) `{runId, messageId, roomId, entityId, startTime, status, ...}`:
 *   around each turn;
 * - ACTION_STARTED / ACTION_COMPLETED `{roomId, world, messageId, content: {actions, actionStatus, ...}}`:
 *   around each action handler;
 * - MESSAGE_SENT `{message}`: the turn's reply was persisted (the assistant memory);
 * - MODEL_USED `{type}`: after each model call.
 * The other names exist so elizaOS plugins that subscribe to them load; nothing here emits them.
 */
import type { Content, IAgentRuntime, Memory, ModelTypeName, UUID } from "./types.js";

/** Every event name of elizaOS's EventType that a plugin may subscribe to. */
export const EventType = {
  WORLD_JOINED: "WORLD_JOINED",
  WORLD_CONNECTED: "WORLD_CONNECTED",
  WORLD_LEFT: "WORLD_LEFT",
  ENTITY_JOINED: "ENTITY_JOINED",
  ENTITY_LEFT: "ENTITY_LEFT",
  ENTITY_UPDATED: "ENTITY_UPDATED",
  ROOM_JOINED: "ROOM_JOINED",
  ROOM_LEFT: "ROOM_LEFT",
  MESSAGE_RECEIVED: "MESSAGE_RECEIVED",
  MESSAGE_SENT: "MESSAGE_SENT",
  MESSAGE_DELETED: "MESSAGE_DELETED",
  CHANNEL_CLEARED: "CHANNEL_CLEARED",
  VOICE_MESSAGE_RECEIVED: "VOICE_MESSAGE_RECEIVED",
  VOICE_MESSAGE_SENT: "VOICE_MESSAGE_SENT",
  REACTION_RECEIVED: "REACTION_RECEIVED",
  POST_GENERATED: "POST_GENERATED",
  INTERACTION_RECEIVED: "INTERACTION_RECEIVED",
  RUN_STARTED: "RUN_STARTED",
  RUN_ENDED: "RUN_ENDED",
  RUN_TIMEOUT: "RUN_TIMEOUT",
  ACTION_STARTED: "ACTION_STARTED",
  ACTION_COMPLETED: "ACTION_COMPLETED",
  EVALUATOR_STARTED: "EVALUATOR_STARTED",
  EVALUATOR_COMPLETED: "EVALUATOR_COMPLETED",
  MODEL_USED: "MODEL_USED",
} as const;
export type EventTypeName = (typeof EventType)[keyof typeof EventType];

/** What every event handler receives. */
export interface EventPayload {
  runtime: IAgentRuntime;
  source?: string;
  [key: string]: unknown;
}

/** MESSAGE_RECEIVED, MESSAGE_SENT. */
export interface MessagePayload extends EventPayload {
  message: Memory;
}

/** RUN_STARTED, RUN_ENDED, RUN_TIMEOUT: one turn. */
export interface RunEventPayload extends EventPayload {
  runId: UUID;
  messageId: UUID;
  roomId: UUID;
  entityId: UUID;
  startTime: number;
  status: "started" | "completed" | "timeout";
  endTime?: number;
  duration?: number;
  error?: string;
}

/** ACTION_STARTED, ACTION_COMPLETED. `world` is the room: A2A has no worlds. */
export interface ActionEventPayload extends EventPayload {
  roomId: UUID;
  world: UUID;
  content: Content;
  messageId?: UUID;
}

/** MODEL_USED. */
export interface ModelEventPayload extends EventPayload {
  type: ModelTypeName;
}

/**
 * An event handler. Its payload is typed loosely (elizaOS does the same) so that handlers written for one
 * payload type (`async (params: MessagePayload) => ...`) fit in a plugin's `events`.
 */
// biome-ignore lint/suspicious/noExplicitAny: handlers typed for one payload (`(p: MessagePayload) => ...`) must fit, as in elizaOS
export type EventHandler<P = any> = (params: P) => Promise<void> | void;

/** A plugin's `events`: handlers by event name. */
export type PluginEvents = Record<string, EventHandler[]>;

/** The handlers of one runtime, by event name. */
export class EventRegistry {
  readonly #handlers = new Map<string, EventHandler[]>();

  register(event: string, handler: EventHandler): void {
    let list = this.#handlers.get(event);
    if (!list) this.#handlers.set(event, (list = []));
    list.push(handler);
  }

  /** The handlers of `event`, in registration order. */
  handlers(event: string): readonly EventHandler[] {
    return this.#handlers.get(event) ?? [];
  }

  /**
   * Calls every handler of each event with `payload`, all at once, and resolves when they are all done. A
   * handler that throws or rejects is reported through `onError`: an event never fails the turn that emitted it.
   */
  async emit(events: string | string[], payload: EventPayload, onError: (event: string, err: unknown) => void): Promise<void> {
    const calls: Array<Promise<void>> = [];
    for (const event of Array.isArray(events) ? events : [events]) {
      for (const handler of this.handlers(event)) {
        calls.push(
          (async () => {
            try {
              await handler(payload);
            } catch (err) {
              onError(event, err);
            }
          })(),
        );
      }
    }
    await Promise.all(calls);
  }
}
