// The SDK from plain JavaScript (no TypeScript, no build step of your own): an agent with one
// streaming skill and one returning skill. Inside this repository the package refers to itself, so
// `npm run build && node agents/examples/plain-js-agent.mjs` runs it. Elsewhere, install it from
// a checkout where `npm run build` has run (it is not on the npm registry): `npm install /path/to/a2a-router`.
// Env: A2A_HUB_URL (default ws://127.0.0.1:8080/hub), AGENT_NAME (default "plain-js"), A2A_HUB_TOKEN.
import { connectAgent } from "a2a-router/sdk";

const agent = connectAgent({
  url: process.env.A2A_HUB_URL ?? "ws://127.0.0.1:8080/hub",
  name: process.env.AGENT_NAME ?? "plain-js",
  token: process.env.A2A_HUB_TOKEN || undefined,
});

// Streams: one chunk per line of the message, numbered.
agent.skill({ name: "number-lines", description: "Numbers the lines of your message" }, async function* (message) {
  let n = 0;
  for (const line of message.split("\n")) yield `${++n}: ${line}\n`;
});

// Returns once, with cost metadata.
agent.skill({ name: "shout", description: "Upper-cases your message" }, async (message) => ({
  text: message.toUpperCase(),
  metadata: { cost: { usd: 0 } },
}));

agent.on("registered", (event) => process.stderr.write(`registered as ${event.agentId}\n`));
agent.ready.catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => agent.close().then(() => process.exit(0)));
