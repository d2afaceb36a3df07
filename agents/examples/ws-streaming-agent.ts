/**
 * A streaming WebSocket agent on the SDK. Each skill streams what it computes as it computes it:
 *   - `primes`: the primes up to N (default 200), each yielded as soon as it is found;
 *   - `table`:  a CSV file of n, n², n³ streamed as artifact chunks (append / lastChunk), with progress.
 *
 * Run: `npm run build && node dist/agents/examples/ws-streaming-agent.js`
 * Env: A2A_HUB_URL (default ws://127.0.0.1:8080/hub), AGENT_NAME (default "streamer"), A2A_HUB_TOKEN.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { connectAgent, type Agent, type ConnectAgentOptions } from "../sdk/index.js";
import { closeOnSignals, isMain } from "./run-main.js";

const MAX_N = 1_000_000;

function parseLimit(message: string, fallback: number): number {
  const n = Number.parseInt(message.match(/\d+/)?.[0] ?? "", 10);
  if (Number.isNaN(n)) return fallback;
  if (n > MAX_N) throw new Error(`N must be at most ${MAX_N}, got ${n}`);
  return n;
}

/** Builds the streaming agent (its skills added before it registers). */
export function streamingAgent(options: Pick<ConnectAgentOptions, "url" | "name" | "token" | "logger" | "reconnect">): Agent {
  const agent = connectAgent({
    ...options,
    card: { description: "Streams primes as it finds them and CSV tables as it writes them.", version: "1.0.0" },
  });

  agent.skill(
    { name: "primes", description: "Lists the primes up to N (the first number in your message), streaming each one.", examples: ["primes up to 100"] },
    async function* (message, ctx) {
      const limit = parseLimit(message, 200);
      let found = 0;
      for (let n = 2; n <= limit; n++) {
        if (ctx.signal.aborted) return;
        let prime = true;
        for (let d = 2; d * d <= n; d++) {
          if (n % d === 0) {
            prime = false;
            break;
          }
        }
        if (prime) {
          found += 1;
          yield found === 1 ? `${n}` : `, ${n}`;
          // Let the link breathe between chunks (cancels and heartbeats get through a long run).
          await nextTurn();
        }
      }
      return { metadata: { primes: found } };
    },
  );

  agent.skill(
    { name: "table", description: "Writes table.csv with n, n², n³ for n up to N (default 20), streamed in chunks.", examples: ["table 50"] },
    async (message, ctx) => {
      const rows = parseLimit(message, 20);
      const chunkRows = 10;
      await ctx.status(`writing ${rows} rows`);
      await ctx.artifact({ name: "table.csv", index: 0, parts: ["n,square,cube\n"], lastChunk: rows === 0 });
      for (let start = 1; start <= rows; start += chunkRows) {
        if (ctx.signal.aborted) return;
        let csv = "";
        const end = Math.min(rows, start + chunkRows - 1);
        for (let n = start; n <= end; n++) csv += `${n},${n * n},${n * n * n}\n`;
        await ctx.artifact({ name: "table.csv", index: 0, parts: [csv], append: true, lastChunk: end === rows });
      }
      return `wrote table.csv with ${rows} rows`;
    },
  );
  return agent;
}

if (isMain(import.meta.url)) {
  const agent = streamingAgent({
    url: process.env.A2A_HUB_URL ?? "ws://127.0.0.1:8080/hub",
    name: process.env.AGENT_NAME ?? "streamer",
    token: process.env.A2A_HUB_TOKEN || undefined,
  });
  agent.on("registered", (e) => process.stderr.write(`registered as ${e.agentId}${e.reconnected ? " (again)" : ""}\n`));
  agent.on("disconnected", (e) => process.stderr.write(`hub link lost (${e.code}); reconnecting\n`));
  closeOnSignals(() => agent.close());
  agent.ready.catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
