import type { Logger } from "pino";
import type { EngineCluster } from "./cluster.js";
import type { LiveTask } from "./engine-types.js";
import { EventStream } from "./event-stream.js";
import type { TaskStatus } from "./model.js";
import type { SharedLog } from "./shared-log.js";
import type { TaskStore } from "./store.js";

/** What a LogReader reads from its engine. */
export interface LogReaderHost {
  store: TaskStore;
  /** Log pages for streams catching up, shared by streams that read the same events (see SharedLog). */
  pages: SharedLog;
  options: { logPageSize: number; subscriberCapacity: number; streamBufferBytes: number };
  log: Logger;
  /** The task's turn in progress on this instance, if any. */
  live(taskId: string): LiveTask | undefined;
  /** The failed status of a task failed for want of storage, until that failure is stored. */
  unstoredFailure(taskId: string): TaskStatus | undefined;
  cluster?: EngineCluster;
  /** A live stream fell behind and went back to reading the log (counted for metrics). */
  onFallback(): void;
}

/** A task's events for streams: first from the log, then live, back to the log when a stream falls behind. */
export class LogReader {
  #host: LogReaderHost;

  constructor(host: LogReaderHost) {
    this.#host = host;
  }

  /** The task's events after `afterSeq`, for one reader (see EventStream); `signal` closes the stream. */
  events(taskId: string, afterSeq: number, signal?: AbortSignal): EventStream {
    return new EventStream(this.#host, taskId, afterSeq, signal);
  }
}
