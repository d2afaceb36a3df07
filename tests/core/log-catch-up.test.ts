import { afterEach, expect, test } from "@jest/globals";
import { AgentRegistry } from "../../router/agents/registry.js";
import { TaskEngine } from "../../router/core/engine.js";
import type { StreamEvent } from "../../router/core/model.js";
import { dialectByName } from "../../router/dialects/index.js";
import { silentLogger } from "../../router/observability/logger.js";
import { TaskService } from "../../router/service/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { counterAgent } from "../helpers/agents.js";

/**
 * A stream catching up on a long log from a store that answers at once (the memory store here; the SQLite
 * store reads on the router's thread too) while its reader keeps up: it must not read the whole log in one
 * job, or the router serves nobody else meanwhile (and holds every event read until that job ends).
 */
let engine: TaskEngine | undefined;
afterEach(async () => {
  await engine?.close();
});

test("a stream catching up on the log hands out its pages in separate jobs, every event once and in order", async () => {
  const agents = new AgentRegistry();
  agents.set(counterAgent("counter", 2000));
  engine = new TaskEngine({ store: new MemoryStore(), agents, logger: silentLogger(), taskTimeoutMs: 30_000, logPageSize: 100 });
  const service = new TaskService({ engine, agents, defaultAgent: "counter" });
  const task = await service.send({ message: { role: "user", parts: [{ kind: "text", text: "go" }] }, metadata: {} }, dialectByName("v0.3"));
  expect(task.lastSeq).toBe(2001);

  const stream = engine.events(task.id, 0);
  const pagesBeforeOtherWork: number[] = [];
  const seqs: number[] = [];
  let pages = 0;
  // Work queued by somebody else before the catch-up starts: it runs once the stream gives the loop back.
  setImmediate(() => pagesBeforeOtherWork.push(pages));
  await new Promise<void>((resolve, reject) => {
    const onBatch = (batch: StreamEvent[] | undefined): void => {
      if (!batch) return resolve();
      pages++;
      for (const e of batch) seqs.push(e.seq!);
      // The reader keeps up: it asks for the next page at once, within the same job.
      stream.read(onBatch, reject);
    };
    stream.read(onBatch, reject);
  });
  expect(seqs).toEqual(Array.from({ length: 2001 }, (_, i) => i + 1));
  expect(pages).toBeGreaterThanOrEqual(20);
  expect(pagesBeforeOtherWork).toHaveLength(1);
  expect(pagesBeforeOtherWork[0]).toBeLessThanOrEqual(1);
});
