/**
 * The behaviour suite of a MemoryRecordStore (router/core/store.ts): where the hosted Eliza runtime keeps its
 * conversations. The router's task stores implement it too, so tests/store.contract.ts runs it on each of them;
 * any other implementation calls `runMemoryStoreContract` with its own factory. Every test gets a fresh, empty
 * store from `make()`; the suite closes every store it opened after each test.
 */
import { afterEach, describe, expect, test } from "@jest/globals";
import type { MemoryRecord, MemoryRecordStore } from "../router/core/store.js";

/** A store under test: the contract's methods, plus a way to release it. */
export type ClosableMemoryStore = MemoryRecordStore & { close(): Promise<void> };

export interface MemoryStoreContractOptions<S extends ClosableMemoryStore> {
  /** Opens a new store over the data of `closed` (already closed). Given for stores whose data persists. */
  reopen?: (closed: S) => Promise<S>;
}

function makeMemory(id: string, roomId: string, createdAt: number): MemoryRecord {
  return { id, roomId, agentId: "eliza", role: "user", content: { text: id }, createdAt };
}

const ids = (items: Array<{ id: string }>): string[] => items.map((t) => t.id);

export function runMemoryStoreContract<S extends ClosableMemoryStore>(name: string, make: () => Promise<S>, options: MemoryStoreContractOptions<S> = {}): void {
  describe(`MemoryRecordStore contract: ${name}`, () => {
    const opened: S[] = [];
    const fresh = async (): Promise<S> => {
      const store = await make();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    test("memories: oldest first, ties in insertion order, limit keeps the newest, per room", async () => {
      const store = await fresh();
      const m1 = makeMemory("m1", "r1", 100);
      const adding = store.addMemory(m1);
      m1.content.text = "mutated";
      await adding;
      await store.addMemory(makeMemory("z2", "r1", 200));
      await store.addMemory(makeMemory("a3", "r1", 200));
      await store.addMemory(makeMemory("m4", "r1", 150));
      await store.addMemory(makeMemory("x", "r2", 50));
      const all = await store.listMemories("r1");
      expect(ids(all)).toEqual(["m1", "m4", "z2", "a3"]);
      expect(all[0]).toEqual(makeMemory("m1", "r1", 100));
      all[0].content.text = "mutated";
      expect((await store.listMemories("r1"))[0]).toEqual(makeMemory("m1", "r1", 100));
      expect(ids(await store.listMemories("r1", 2))).toEqual(["z2", "a3"]);
      expect(ids(await store.listMemories("r1", 3))).toEqual(["m4", "z2", "a3"]);
      expect(ids(await store.listMemories("r1", 10))).toEqual(["m1", "m4", "z2", "a3"]);
      expect(await store.listMemories("r1", 0)).toEqual([]);
      expect(ids(await store.listMemories("r2"))).toEqual(["x"]);
      expect(await store.listMemories("none")).toEqual([]);
      await expect(store.listMemories("r1", -2)).rejects.toThrow(/limit/);
    });

    test("adding a memory id again is a no-op", async () => {
      const store = await fresh();
      await store.addMemory(makeMemory("m", "r", 1));
      await store.addMemory({ ...makeMemory("m", "r", 2), content: { text: "second" } });
      expect(await store.listMemories("r")).toEqual([makeMemory("m", "r", 1)]);
    });

    const reopen = options.reopen;
    if (reopen) {
      test("memories survive closing and reopening", async () => {
        const store = await fresh();
        await store.addMemory(makeMemory("m", "room", 1));
        await store.close();
        const again = await reopen(store);
        opened.push(again);
        expect(ids(await again.listMemories("room"))).toEqual(["m"]);
        await again.addMemory(makeMemory("n", "room", 2));
        expect(ids(await again.listMemories("room"))).toEqual(["m", "n"]);
      });
    }
  });
}
