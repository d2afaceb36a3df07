/**
 * A non-streaming WebSocket agent on the SDK. Its skills answer once (one task.complete each):
 *   - `stats`: counts the words, characters and lines of your text, and reports what the work cost in
 *     the completion's metadata (`cost`), as a paid model call would. Clients still see a stream: the
 *     router shows the answer as a working status, then the completion carrying the cost.
 *   - `compare`: a two-turn task. It takes your first text and asks for the second (state
 *     `input-required`); your answer on the same task id (`a2a-router send --task ID "..."`) gets the
 *     comparison.
 *
 * Run: `npm run build && node dist/agents/examples/ws-complete-agent.js`
 * Env: A2A_HUB_URL (default ws://127.0.0.1:8080/hub), AGENT_NAME (default "counter"), A2A_HUB_TOKEN.
 */
import { connectAgent, type Agent, type ConnectAgentOptions } from "../sdk/index.js";
import { closeOnSignals, isMain } from "./run-main.js";

/** What one character of input costs in this example's price list (USD). */
const USD_PER_CHARACTER = 0.000002;
/** First texts kept while `compare` waits for the second; past this the oldest question is forgotten. */
const MAX_OPEN_COMPARISONS = 1_000;

interface Counts {
  words: number;
  characters: number;
  lines: number;
}

function count(text: string): Counts {
  return {
    words: text.split(/\s+/).filter(Boolean).length,
    characters: [...text].length,
    lines: text === "" ? 0 : text.split("\n").length,
  };
}

/** `1 word`, `2 words`. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function describe(c: Counts): string {
  return `${plural(c.words, "word")}, ${plural(c.characters, "character")}, ${plural(c.lines, "line")}`;
}

export function completeAgent(options: Pick<ConnectAgentOptions, "url" | "name" | "token" | "logger" | "reconnect">): Agent {
  const agent = connectAgent({
    ...options,
    card: { description: "Counts words, characters and lines, and compares two texts; answers once, with its cost.", version: "1.0.0" },
  });
  agent.skill({ name: "stats", description: "Counts the words, characters and lines of your message.", examples: ["how long is this?"] }, async (message) => {
    const counts = count(message);
    return {
      text: describe(counts),
      metadata: { cost: { inputCharacters: counts.characters, usd: Number((counts.characters * USD_PER_CHARACTER).toFixed(6)) } },
    };
  });

  // The first text of each open comparison, by task id: the follow-up turn only carries the answer.
  const firstTexts = new Map<string, string>();
  agent.skill(
    { name: "compare", description: "Compares two texts: send the first, it asks for the second.", examples: ["the quick brown fox"] },
    async (message, ctx) => {
      const first = firstTexts.get(ctx.taskId);
      if (first === undefined) {
        firstTexts.set(ctx.taskId, message);
        if (firstTexts.size > MAX_OPEN_COMPARISONS) firstTexts.delete(firstTexts.keys().next().value!);
        return { state: "input-required", text: `Got your first text (${describe(count(message))}). What should I compare it with?` };
      }
      firstTexts.delete(ctx.taskId);
      const a = count(first);
      const b = count(message);
      const diff = b.words - a.words;
      const verdict = diff === 0 ? "the same number of words" : `${plural(Math.abs(diff), "word")} ${diff > 0 ? "more" : "fewer"} in the second`;
      return `first: ${describe(a)}; second: ${describe(b)}; ${verdict}.`;
    },
  );
  return agent;
}

if (isMain(import.meta.url)) {
  const agent = completeAgent({
    url: process.env.A2A_HUB_URL ?? "ws://127.0.0.1:8080/hub",
    name: process.env.AGENT_NAME ?? "counter",
    token: process.env.A2A_HUB_TOKEN || undefined,
  });
  agent.on("registered", (e) => process.stderr.write(`registered as ${e.agentId}${e.reconnected ? " (again)" : ""}\n`));
  closeOnSignals(() => agent.close());
  agent.ready.catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
