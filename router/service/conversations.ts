/**
 * Which session a chat conversation is (CONTRACT 14, "a conversation is not a user"): the Chat Completions
 * face sends the whole conversation every time, so the router recognizes a conversation it answered by its
 * messages. Per owner and agent, each answered conversation (its messages and the answer, as a digest the face
 * makes) names its session; a request whose earlier messages are exactly one of those goes on in that session.
 * The records live in the store, so any router on one Redis recognizes a conversation another one answered.
 */
import type { ExpiringRecordStore } from "../core/store.js";

/**
 * How long an answered conversation is recognized: a week after its last answer (each answer records the
 * longer conversation afresh). A conversation taken up again later starts a new session.
 */
export const CONVERSATION_TTL_MS = 7 * 86_400_000;

/** The sessions of answered conversations, per owner and agent. */
export class ConversationSessions {
  readonly #records: ExpiringRecordStore;

  constructor(records: ExpiringRecordStore) {
    this.#records = records;
  }

  /** The session of the conversation with digest `digest`, if the router answered it. */
  find(owner: string | undefined, agentId: string, digest: string): Promise<string | undefined> {
    return this.#records.read(key(owner, agentId, digest));
  }

  /** Records that the conversation with digest `digest` (its messages and the answer) is session `sessionId`. */
  async remember(owner: string | undefined, agentId: string, digest: string, sessionId: string): Promise<void> {
    await this.#records.write(key(owner, agentId, digest), sessionId, CONVERSATION_TTL_MS);
  }
}

function key(owner: string | undefined, agentId: string, digest: string): string {
  return `conv:${JSON.stringify([owner ?? "", agentId, digest])}`;
}
