/** Runtime memories <-> the router store's MemoryRecord (roomId = the A2A contextId). */
import { randomUUID } from "node:crypto";
import type { MemoryRecord } from "../../router/core/store.js";
import type { Content, Memory } from "./types.js";

/** The entity id a user's messages carry in a room (A2A has no user identity of its own). */
export function userEntityId(roomId: string): string {
  return `user:${roomId}`;
}

export function toRecord(memory: Memory & { id: string }, agentId: string): MemoryRecord {
  return {
    id: memory.id,
    roomId: memory.roomId,
    agentId,
    role: memory.entityId === agentId ? "assistant" : "user",
    // Through JSON: stores copy with structuredClone or JSON, and content may hold functions or undefined.
    content: JSON.parse(JSON.stringify(memory.content)) as Record<string, unknown>,
    createdAt: memory.createdAt ?? Date.now(),
  };
}

export function fromRecord(record: MemoryRecord): Memory {
  return {
    id: record.id,
    entityId: record.role === "assistant" ? record.agentId : userEntityId(record.roomId),
    agentId: record.agentId,
    roomId: record.roomId,
    content: record.content as Content,
    createdAt: record.createdAt,
  };
}

/** A new memory of the agent's own in `roomId` (its reply to the room's latest message). */
export function agentMemory(agentId: string, roomId: string, content: Content): Memory & { id: string } {
  return { id: randomUUID(), entityId: agentId, agentId, roomId, content, createdAt: Date.now() };
}
