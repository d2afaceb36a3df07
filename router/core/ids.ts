/**
 * The ids the router makes for tasks and contexts (a v0.1 client names its own tasks; every other id is
 * ours), and the task ids the CLI names for v0.1 targets.
 */
import { randomFillSync } from "node:crypto";
import { V7Generator } from "uuidv7";

/**
 * Random words for the id generator, drawn from the system's CSPRNG 1,024 at a time: a draw costs about the
 * same whatever its size (5-7 us for the 16 bytes of one id on the eleventh pass's machine, docs/benchmarks.md;
 * an id now takes 0.3-0.4 us), and a send makes two ids. Node's own `randomUUID` pools the same way.
 */
class PooledRandom {
  readonly #words = new Uint32Array(1024);
  #at = this.#words.length;

  nextUint32(): number {
    if (this.#at === this.#words.length) {
      randomFillSync(this.#words);
      this.#at = 0;
    }
    return this.#words[this.#at++]!;
  }
}

const generator = new V7Generator(new PooledRandom());

/**
 * A new task or context id: an RFC 9562 version 7 UUID, whose leading 48 bits are the time in milliseconds
 * and whose next bits count up within a millisecond (the RFC's fixed-length counter method). Ids made later
 * sort later, so a store's indexes on them grow at their end: a SQLite commit of new tasks touches the last
 * page of each index instead of a random page per task (docs/benchmarks.md, ninth pass, measured 2-2.5x less
 * commit time per task). The time it shows is no secret: the task carries it already.
 */
export function newId(): string {
  return generator.generate().toString();
}
