import type { Writable } from "node:stream";

/**
 * Resolves true once `stream` can take more (at once when its buffer is not full), false once it closed first
 * (the client went away): the one wait every writer that honours backpressure on a response shares.
 */
export function drained(stream: Writable): Promise<boolean> {
  if (stream.destroyed) return Promise.resolve(false);
  if (!stream.writableNeedDrain) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (more: boolean): void => {
      stream.off("drain", onDrain);
      stream.off("close", onClose);
      resolve(more);
    };
    const onDrain = (): void => settle(true);
    const onClose = (): void => settle(false);
    stream.once("drain", onDrain);
    stream.once("close", onClose);
  });
}
