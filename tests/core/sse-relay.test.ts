/**
 * The SSE relay's writing of a batch (router/sse/relay.ts): small frames joined into one write, a large event's
 * pieces written after them, each item made a message once, in order, across the client's backpressure.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { relaySse, type SseMessage, type SseSource } from "../../router/sse/relay.js";

type Item = { seq: number; big: boolean };

/** A source of one batch; counts how often each item was made a message. */
function batchSource(batch: Item[]): SseSource<Item> & { made: Map<number, number> } {
  const made = new Map<number, number>();
  let given = false;
  return {
    made,
    opening: () => [],
    readEvents(done) {
      if (given) return done(undefined);
      given = true;
      done(batch);
    },
    message(item): SseMessage {
      made.set(item.seq, (made.get(item.seq) ?? 0) + 1);
      const json = JSON.stringify({ seq: item.seq, text: "x".repeat(item.big ? 100_000 : 20) });
      // A big item's data in pieces, as a large shared payload is (a string and bytes).
      return item.big ? { seq: item.seq, data: [json.slice(0, 10), Buffer.from(json.slice(10))] } : { seq: item.seq, data: json };
    },
    close() {},
  };
}

async function serve(source: SseSource<Item>): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => relaySse(res, source, { heartbeatMs: 60_000, onError: (err) => res.destroy(err as Error) }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

describe("the SSE relay's batches", () => {
  test("small frames and a large event's pieces arrive whole and in order, each item made a message once, read slowly or at once", async () => {
    // Large items between small ones, many of them: the socket fills, so some writes wait for drains.
    const batch: Item[] = Array.from({ length: 120 }, (_, i) => ({ seq: i + 1, big: i % 7 === 3 }));
    for (const slow of [false, true]) {
      const source = batchSource(batch);
      const { server, url } = await serve(source);
      try {
        const res = await fetch(url);
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let text = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          // A slow reader: each chunk is read only after the next macrotask, so the server meets backpressure.
          if (slow) await new Promise((r) => setImmediate(r));
        }
        const events = text
          .split("\n\n")
          .filter((f) => f.startsWith("id: "))
          .map((f) => {
            const [idLine, dataLine] = f.split("\n");
            return { id: Number(idLine!.slice(4)), data: JSON.parse(dataLine!.slice(6)) as { seq: number; text: string } };
          });
        expect(events.map((e) => e.id)).toEqual(batch.map((b) => b.seq));
        expect(events.every((e) => e.data.seq === e.id && e.data.text.length === (batch[e.id - 1]!.big ? 100_000 : 20))).toBe(true);
        expect([...source.made.values()].every((n) => n === 1)).toBe(true);
        expect(source.made.size).toBe(batch.length);
      } finally {
        server.close();
        server.closeAllConnections();
      }
    }
  });
});
