/**
 * The slow-reader scenario's flooding agent, on a thread of its own: it answers its task with `events`
 * statuses of `eventKb` KB as fast as the router takes them. Off the thread that times the other clients,
 * whose event loop its bursts (256 corked 64 KB frames at a time) would otherwise hold, and count as the
 * router's latency; a real agent is another process.
 */
import { parentPort, workerData } from "node:worker_threads";
import { BenchAgent } from "./lib.js";
import { pump } from "./relay.js";

export interface FloodOptions {
  url: string;
  name: string;
  events: number;
  eventKb: number;
}

const port = parentPort!;
const { url, name, events, eventKb } = workerData as FloodOptions;
const agent = await BenchAgent.connect(url, name);
const filler = "x".repeat(eventKb * 1024);
agent.onExecute = (taskId) => void pump(agent, taskId, events, (i) => `${i}:${filler}`);
port.on("message", () => {
  agent.close();
  port.close();
});
port.postMessage("ready");
