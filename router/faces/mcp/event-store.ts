/**
 * The SDK's EventStore for one session, backed by the task log: a message a call derives from a logged event
 * carries that event's call event id (event-ids.ts), given by the face before it sends the message; the route
 * serves a `Last-Event-ID` of that form from the log itself (resume.ts), on any instance. Only the other
 * messages (answers to tools/list and the like, `list_changed` on the GET stream) are kept here, in memory and
 * bounded: their replay works on the instance that sent them.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** Ids the face chose for messages it is about to send, by the message's params object (the SDK keeps it). */
const assigned = new WeakMap<object, string>();

/** Gives the message whose params are `params` the event id `id` (call it before sending the message). */
export function assignEventId(params: object, id: string): void {
  assigned.set(params, id);
}

/** Streams remembered per session, and messages per stream (the oldest are forgotten first). */
const MEMORY = { streams: 32, messages: 64 } as const;

const MEMORY_PREFIX = "s";
/** The stream id the SDK's transport gives a session's GET stream. */
const STANDALONE_STREAM = "_GET_stream";

export class SessionEventStore implements EventStore {
  /** The event id of a call's response, by its request id (the SDK builds the response object itself). */
  #responses = new Map<RequestId, string>();
  #nextPriming: string | undefined;
  #streams = new Map<string, Array<{ id: string; message: JSONRPCMessage }>>();
  #counter = 0;

  /** The priming event of the stream the next POST opens gets this id (a call's: its first seq). */
  primeNext(id: string | undefined): void {
    this.#nextPriming = id;
  }

  /** The response to `requestId` gets this id. */
  assignResponse(requestId: RequestId, id: string): void {
    this.#responses.set(requestId, id);
  }

  /** Whether `id` is one this store keeps (memory ids; call ids are served from the log). */
  static isMemoryId(id: string): boolean {
    return id.startsWith(`${MEMORY_PREFIX}.`);
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const priming = Object.keys(message).length === 0;
    let id: string | undefined;
    if (priming) {
      id = this.#nextPriming;
      this.#nextPriming = undefined;
    } else if ("params" in message && message.params) {
      id = assigned.get(message.params);
    } else if ("id" in message && ("result" in message || "error" in message) && message.id !== undefined) {
      id = this.#responses.get(message.id);
      this.#responses.delete(message.id);
    }
    if (id !== undefined) return id;
    const memoryId = `${MEMORY_PREFIX}.${streamId}.${++this.#counter}`;
    this.#remember(streamId, memoryId, message);
    return memoryId;
  }

  /**
   * The messages of a request's stream after `eventId` (kept in memory), or undefined when this store does not
   * know the id or it belongs to the session's GET stream (whose replay goes on live, through the SDK).
   */
  messagesAfter(eventId: string): Array<{ id: string; message: JSONRPCMessage }> | undefined {
    const found = this.#locate(eventId);
    if (!found || found.streamId === STANDALONE_STREAM) return undefined;
    return this.#streams
      .get(found.streamId)!
      .slice(found.index + 1)
      .filter((e) => Object.keys(e.message).length > 0);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#locate(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const found = this.#locate(lastEventId);
    if (!found) throw new Error("unknown event id");
    for (const entry of this.#streams.get(found.streamId)!.slice(found.index + 1)) {
      if (Object.keys(entry.message).length > 0) await send(entry.id, entry.message);
    }
    return found.streamId;
  }

  #remember(streamId: string, id: string, message: JSONRPCMessage): void {
    let list = this.#streams.get(streamId);
    if (!list) {
      list = [];
      this.#streams.set(streamId, list);
      for (const old of this.#streams.keys()) {
        if (this.#streams.size <= MEMORY.streams) break;
        this.#streams.delete(old);
      }
    }
    list.push({ id, message });
    if (list.length > MEMORY.messages) list.shift();
  }

  #locate(eventId: string): { streamId: string; index: number } | undefined {
    if (!SessionEventStore.isMemoryId(eventId)) return undefined;
    const streamId = eventId.slice(MEMORY_PREFIX.length + 1, eventId.lastIndexOf("."));
    const index = this.#streams.get(streamId)?.findIndex((e) => e.id === eventId) ?? -1;
    return index < 0 ? undefined : { streamId, index };
  }
}
