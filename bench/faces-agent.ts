/**
 * The faces scenario's hub agent `bench` (bench/faces.ts): each turn it streams as many working statuses as
 * its message's text says, of the kind asked for (progress lines or the answer's deltas), then completes.
 * By default it runs in a child process of its own (this file run with the router's URL), as an agent of a
 * deployment runs apart from its clients: in the bench's process a heavy client (the MCP SDK's Client, ~20-30
 * us a notification) delayed the agent's handling of the next task and so every face's first event
 * (docs/benchmarks.md, fifteenth pass). BENCH_FACES_AGENT=inline keeps it on the bench's own event loop.
 */
import { fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { TextKind } from "./face-clients.js";
import { BenchAgent } from "./lib.js";

/** Where the faces' agent runs: "process" (default), or "inline" on the clients' event loop. */
export const AGENT_MODE: "process" | "inline" = process.env.BENCH_FACES_AGENT === "inline" ? "inline" : "process";

/** The faces' agent, wherever it runs. */
export interface FacesAgent {
  /** Its process id when it runs apart (its CPU is then measurable alone), undefined inline. */
  pid: number | undefined;
  /** Makes the next turns' events of `kind`; resolves once the agent uses it. */
  use(kind: TextKind): Promise<void>;
  close(): Promise<void>;
}

/** Pushes `n` statuses of `kind`, corked in bursts, then a completion without text (the answer is the deltas). */
export async function pumpTurn(agent: BenchAgent, taskId: string, n: number, kind: TextKind): Promise<void> {
  const socket = agent.socket;
  for (let i = 1; i <= n; i++) {
    if (i % 256 === 1) socket.cork();
    agent.status(taskId, `ev${i}.`, kind);
    if (i % 256 === 0) {
      socket.uncork();
      await agent.writable();
    }
  }
  socket.uncork();
  agent.ws.send(`{"jsonrpc":"2.0","method":"task.complete","params":{"task_id":"${taskId}","status":{"state":"completed"},"final":true}}`);
}

/** Connects the agent `name` to the router at `url` and serves turns of `kind`, switchable. */
async function serve(url: string, kind: TextKind, name: string): Promise<{ agent: BenchAgent; use(k: TextKind): void }> {
  const agent = await BenchAgent.connect(url, name);
  const use = (k: TextKind): void => {
    agent.onExecute = (taskId, text) => void pumpTurn(agent, taskId, Number(text) || 1, k);
  };
  use(kind);
  return { agent, use };
}

/** The faces' agent against the router at `url`, in `mode` (AGENT_MODE by default), registered as `name`. */
export async function startFacesAgent(url: string, mode = AGENT_MODE, name = "bench"): Promise<FacesAgent> {
  if (mode === "inline") {
    const { agent, use } = await serve(url, "progress", name);
    return {
      pid: undefined,
      use: async (kind) => use(kind),
      close: async () => agent.close(),
    };
  }
  // IPC carries the kind to use and the agent's acknowledgements; no node flags of the bench's (--expose-gc).
  const child = fork(fileURLToPath(import.meta.url), [url, name], { execArgv: [], stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const reply = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const onExit = (): void => reject(new Error("the faces' agent process exited"));
      child.once("exit", onExit);
      child.once("message", () => {
        child.off("exit", onExit);
        resolve();
      });
    });
  await reply(); // registered with the router
  return {
    pid: child.pid,
    async use(kind) {
      const ack = reply();
      child.send({ kind });
      await ack;
    },
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

// Run as a child: `node faces-agent.js <router url> <name>`; takes {kind} messages, answers each once applied.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { agent, use } = await serve(process.argv[2]!, "progress", process.argv[3] ?? "bench");
  process.on("message", (m: { kind: TextKind }) => {
    use(m.kind);
    process.send!("ok");
  });
  const exit = (): void => {
    agent.close();
    process.exit(0);
  };
  process.on("SIGTERM", exit);
  // The bench gone (killed, or crashed before closing it): no agent left behind.
  process.on("disconnect", exit);
  process.send!("ready");
}
