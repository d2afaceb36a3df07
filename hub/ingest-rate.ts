/**
 * What one agent connection may send the hub per second (`limits.hubBytesPerSecond`): a token bucket that
 * holds up to one second's worth, so an agent may burst that much and then goes at the rate. A frame is always
 * taken whole, however large; the bytes past the allowance are a debt, and the socket is not read until it is
 * paid back. Bounding one agent's share of the router's CPU keeps a flooding agent from slowing every other
 * stream (docs/benchmarks.md, tenth pass).
 */
export class IngestRate {
  readonly #perSecond: number;
  #allowance: number;
  #at: number;

  constructor(bytesPerSecond: number) {
    this.#perSecond = bytesPerSecond;
    this.#allowance = bytesPerSecond;
    this.#at = performance.now();
  }

  /** Takes a frame of `bytes`; how many milliseconds the socket should then rest (0: none). */
  take(bytes: number): number {
    const now = performance.now();
    this.#allowance = Math.min(this.#perSecond, this.#allowance + ((now - this.#at) * this.#perSecond) / 1000);
    this.#at = now;
    this.#allowance -= bytes;
    return this.#allowance >= 0 ? 0 : Math.ceil((-this.#allowance * 1000) / this.#perSecond);
  }
}
