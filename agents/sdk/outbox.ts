import type { HubLink } from "./link.js";
import type { Settings } from "./options.js";

/** A task update on its way to the hub; `seq` numbers it within its turn, so a re-sent copy is known. */
export interface TaskFrame {
  method: string;
  params: { task_id: string; seq: number };
}

/**
 * Task updates between the handlers and the hub. While registered they go out at once and stay in flight
 * until the hub acks them (it acks once they are durable); while not, they are kept, bounded. When the
 * link drops, what was in flight goes back in front of what was kept, and everything is sent again, in
 * order, after the next registration: the hub knows copies it already stored by their seq.
 */
export class Outbox {
  #link: HubLink;
  #settings: Settings;
  #open = false;
  #kept: TaskFrame[] = [];
  /** Sent, not yet acked; a Set keeps the order they were sent in. */
  #inFlight = new Set<TaskFrame>();
  #droppedWarned = false;
  #closed = false;

  constructor(link: HubLink, settings: Settings) {
    this.#link = link;
    this.#settings = settings;
  }

  /** Sends now, or keeps for the next registration. Resolves once handed to the socket or kept. */
  async send(frame: TaskFrame): Promise<void> {
    if (this.#closed) return;
    if (!this.#open) {
      this.#keep(frame);
      return;
    }
    this.#inFlight.add(frame);
    const handed = await this.#link.call(frame.method, frame.params, (err) => {
      // No answer but a broken link: offline() (or the failed hand-over below) keeps the frame for a re-send.
      if (err && !err.rpc) return;
      if (!this.#inFlight.delete(frame)) return;
      if (err) this.#settings.logger.debug(`hub refused ${frame.method}: ${err.message}`);
    });
    if (!handed && this.#inFlight.delete(frame)) this.#keep(frame);
  }

  /** Registered: send what was kept. */
  online(): void {
    this.#open = true;
    const kept = this.#kept;
    this.#kept = [];
    this.#droppedWarned = false;
    if (kept.length > 0) this.#settings.logger.info(`sending ${kept.length} frame(s) kept while disconnected`);
    for (const frame of kept) void this.send(frame);
  }

  /** The link dropped: unacked updates are kept again, ahead of the newer ones. */
  offline(): void {
    this.#open = false;
    const unacked = [...this.#inFlight];
    this.#inFlight.clear();
    this.#kept = unacked.concat(this.#kept);
    this.#trim();
  }

  /** The tasks with updates kept or not yet acked (their turn may be over, their updates are not delivered yet). */
  taskIds(): Set<string> {
    const ids = new Set<string>();
    for (const frame of this.#kept) ids.add(frame.params.task_id);
    for (const frame of this.#inFlight) ids.add(frame.params.task_id);
    return ids;
  }

  /** The task is over (canceled): nothing more of it is sent. */
  forget(taskId: string): void {
    this.#kept = this.#kept.filter((frame) => frame.params.task_id !== taskId);
    for (const frame of this.#inFlight) if (frame.params.task_id === taskId) this.#inFlight.delete(frame);
  }

  close(): void {
    this.#closed = true;
    this.#open = false;
    this.#kept = [];
    this.#inFlight.clear();
  }

  #keep(frame: TaskFrame): void {
    this.#kept.push(frame);
    this.#trim();
  }

  #trim(): void {
    const max = this.#settings.maxBufferedFrames;
    if (this.#kept.length <= max) return;
    this.#kept.splice(0, this.#kept.length - max);
    if (!this.#droppedWarned) {
      this.#settings.logger.warn(`more than ${max} frames kept while disconnected; dropping the oldest`);
      this.#droppedWarned = true;
    }
  }
}
