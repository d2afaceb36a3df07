/**
 * A progressive status message, like plugin-music-player's ProgressiveMessage: each update replaces the
 * previous one in place (merge "replace"), with a pause between updates so users can read them.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { HandlerCallback, IAgentRuntime } from "../../types.js";

export class ProgressiveMessage {
  readonly #callback: HandlerCallback | undefined;
  readonly #source: string | undefined;
  readonly #delayMs: number;
  readonly #signal: AbortSignal | undefined;
  #sent = 0;

  constructor(options: { callback?: HandlerCallback; source?: string; delayMs: number; signal?: AbortSignal }) {
    this.#callback = options.callback;
    this.#source = options.source;
    this.#delayMs = options.delayMs;
    this.#signal = options.signal;
  }

  /** Shows `text` in place of the previous status (after the configured pause, from the second one on). */
  async update(text: string): Promise<void> {
    if (this.#sent++ > 0 && this.#delayMs > 0) await sleep(this.#delayMs, undefined, { signal: this.#signal });
    await this.#callback?.({ text, source: this.#source, merge: "replace" });
  }
}

/** A numeric setting (e.g. MUSIC_PROGRESS_DELAY_MS), or `fallback` when unset or not a number. */
export function numberSetting(runtime: IAgentRuntime, key: string, fallback: number): number {
  const value = Number(runtime.getSetting(key));
  return runtime.getSetting(key) !== null && Number.isFinite(value) && value >= 0 ? value : fallback;
}
