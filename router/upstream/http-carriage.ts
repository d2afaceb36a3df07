import { AnswerTooLarge, boundedText, type ClientCall, isEventStream } from "../client/index.js";
import type { Answer, Carriage, ExchangeOptions } from "./carriage.js";
import { callResult, postCall, sseResults } from "./transport.js";

/**
 * Calls to an upstream agent over HTTP (JSON-RPC and HTTP+JSON): a POST (or the operation's verb and path)
 * through the one client transport, answered by a JSON body or an SSE stream (a server may answer a stream
 * with one response), each bounded.
 */
export class HttpCarriage implements Carriage {
  constructor(
    private readonly agentId: string,
    private readonly limits: { idleMs: number; maxAnswerBytes: number },
  ) {}

  async *exchange(endpoint: string, call: ClientCall, options: ExchangeOptions): AsyncGenerator<Answer> {
    const { signal, stream, headers } = options;
    const res = await postCall(this.agentId, endpoint, call, { signal, stream, ...(headers && { headers }) });
    try {
      if (isEventStream(res)) {
        for await (const result of sseResults(res, this.agentId, this.limits.idleMs, call, this.limits.maxAnswerBytes)) yield { kind: "event", result };
      } else {
        yield { kind: "send", result: callResult(await this.#json(res), this.agentId, call) };
      }
    } finally {
      await res.body?.cancel().catch(() => undefined);
    }
  }

  close(): void {
    // fetch's connections are pooled by Node: nothing of this agent's own to let go of.
  }

  async #json(res: Response): Promise<unknown> {
    let text: string;
    try {
      text = await boundedText(res, this.limits.maxAnswerBytes);
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw new Error(`Upstream agent ${this.agentId} sent an answer of ${err.message}`);
      throw new Error(`Upstream agent ${this.agentId} closed the connection before its answer was read`);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`Upstream agent ${this.agentId} answered with something that is not JSON`);
    }
  }
}
