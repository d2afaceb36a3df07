/**
 * The SDK's EventStore for one session, backed by the task log: a message a call derives from a logged event
 * carries that event's call event id (event-ids.ts), given by the face before it sends the message; the route
 * serves a `Last-Event-ID` of that form from the log itself (resume.ts), on any instance. The session's GET
 * stream (`list_changed`) keeps its last messages in memory, replayed on the instance that sent them. The
 * streams of other requests (tools/list, tasks/*: answered at once) carry no event ids: there is nothing to
 * resume, and a stream without ids is one the SDK's client does not try to resume.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** Ids the face chose for messages it is about to send, by the message's params object (the SDK keeps it). */
const assigned = new WeakMap<object, string>();

/** Gives the message whose params are `params` the event id `id` (call it before sending the message). */
export function assignEventId(params: object, id: string): void {
  assigned.set(params, id);
}

/** The stream id the SDK's transport gives a session's GET stream. */
const STANDALONE_STREAM = "_GET_stream";
/** Messages of the GET stream kept for its replay (the oldest are forgotten first). */
const STANDALONE_MEMORY = 64;
const MEMORY_PREFIX = "g";
/** What the transport writes as "no id" (it omits the id line of an empty id). */
const NO_ID = "";

export class SessionEventStore implements EventStore {
  /** The event id of a call's response, by its request id (the SDK builds the response object itself). */
  #responses = new Map<RequestId, string>();
  #nextPriming: string | undefined;
  #standalone: Array<{ id: string; message: JSONRPCMessage }> = [];
  #counter = 0;
  #primed = false;

  /**
   * The priming event of the stream the next POST opens gets this id (a call's: its first seq). Returns
   * whether the transport stored a priming event since the last call (it does before dispatching the POST).
   */
  primeNext(id: string | undefined): boolean {
    const primed = this.#primed;
    this.#nextPriming = id;
    this.#primed = false;
    return primed;
  }

  /** The response to `requestId` gets this id. */
  assignResponse(requestId: RequestId, id: string): void {
    this.#responses.set(requestId, id);
  }

  /** Whether this instance still holds the GET stream message `id` (else a resumption starts a fresh stream). */
  knows(id: string): boolean {
    return this.#standalone.some((e) => e.id === id);
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (streamId === STANDALONE_STREAM) {
      const id = `${MEMORY_PREFIX}.${++this.#counter}`;
      this.#standalone.push({ id, message });
      if (this.#standalone.length > STANDALONE_MEMORY) this.#standalone.shift();
      return id;
    }
    if (Object.keys(message).length === 0) {
      const id = this.#nextPriming;
      this.#nextPriming = undefined;
      this.#primed = true;
      return id ?? NO_ID;
    }
    if ("params" in message && message.params) return assigned.get(message.params) ?? NO_ID;
    if ("id" in message && ("result" in message || "error" in message) && message.id !== undefined) {
      const id = this.#responses.get(message.id);
      this.#responses.delete(message.id);
      return id ?? NO_ID;
    }
    return NO_ID;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.knows(eventId) ? STANDALONE_STREAM : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const index = this.#standalone.findIndex((e) => e.id === lastEventId);
    for (const entry of this.#standalone.slice(index + 1)) await send(entry.id, entry.message);
    return STANDALONE_STREAM;
  }
}
