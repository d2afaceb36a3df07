#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from "commander";
import { registerClientCommands } from "./cli/index.js";
import { serve } from "./serve-command.js";
import { VERSION } from "./version.js";

/** The `a2a-router` binary: `serve` runs the router; the other commands are its client. */
const program = new Command("a2a-router")
  .description("A2A gateway: JSON-RPC + SSE for clients; hosted, HTTP and WebSocket agents behind one stream.")
  .version(VERSION)
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("must be an integer from 0 to 65535");
  return n;
}

program
  .command("serve")
  .description("run the router (HTTP + WebSocket hub on one port)")
  .option("--host <host>", "address to bind (env HOST; default 127.0.0.1)")
  .addOption(new Option("--port <port>", "port to bind, 0 for any free one (env PORT; default 8080)").argParser(port))
  .addOption(new Option("--grpc-port <port>", "also serve the A2A gRPC binding on this port, 0 for any free one (env GRPC_PORT; default off)").argParser(port))
  .option(
    "--store <spec>",
    "memory | sqlite:PATH | redis://host:port/db (env A2A_ROUTER_STORE; default sqlite:./data/router.db; Redis key prefix: env A2A_ROUTER_REDIS_PREFIX)",
  )
  .option(
    "--config <path>",
    "config file (default ./a2a-router.config.json when present); other env: ROUTER_API_KEYS, HUB_TOKENS, DEFAULT_AGENT, CORS_ORIGINS, PUBLIC_URL, TASK_TIMEOUT_MS, HEARTBEAT_MS, HUB_TIMEOUT_MS, LOG_LEVEL, OPENAI_BASE_URL; every key and env var: README, Configuration",
  )
  .option("--character <path>", "character file for the eliza agent")
  .option("--eliza-plugin <path>", "Eliza plugin module to load (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
  .option("--allow-open", "allow a non-loopback bind without client API keys")
  .action(serve);

registerClientCommands(program);

await program.parseAsync(process.argv);
