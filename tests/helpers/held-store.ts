import type { CommitBatch } from "../../router/core/store.js";
import { MemoryStore } from "../../router/store/index.js";

/**
 * A memory store whose commits can be held: a store that has fallen behind. `visibleFirst`: the batch is
 * readable at once and only the commit's answer waits (the SQLite store, whose writer is another thread,
 * lets reads see a commit before the router hears it is done); else nothing is written until released.
 */
export class HeldStore extends MemoryStore {
  readonly visibleFirst: boolean;
  #gate: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(options: { visibleFirst?: boolean } = {}) {
    super();
    this.visibleFirst = options.visibleFirst ?? false;
  }

  /** Commits from now on wait until `release`. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#release?.();
  }

  override async commit(batch: CommitBatch): Promise<void> {
    if (!this.visibleFirst) await this.#gate;
    await super.commit(batch);
    if (this.visibleFirst) await this.#gate;
  }
}
