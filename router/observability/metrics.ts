import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { EngineObserver } from "../core/engine.js";
import type { LoggedEvent, Task } from "../core/model.js";

/**
 * The router's Prometheus metrics, on a registry of its own so several routers can live in one process
 * (tests). Gauges that mirror live state are collected on scrape instead of being kept up to date.
 */
export class RouterMetrics implements EngineObserver {
  readonly registry = new Registry();
  readonly tasksStarted: Counter<"agent">;
  readonly turnsEnded: Counter<"agent" | "state">;
  readonly turnSeconds: Histogram<"agent">;
  readonly eventsRelayed: Counter;
  readonly sseStreams: Gauge;
  readonly hubRests: Counter<"limit">;

  constructor(live: {
    liveTasks(): number;
    streams(): number;
    bufferedEvents(): number;
    pendingCommits(): number;
    logFallbacks(): number;
    hubAgents(): number;
    hubAgentsPaused(): number;
  }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: "a2a_router_" });
    this.tasksStarted = new Counter({ name: "a2a_router_turns_started_total", help: "Task turns started, by agent", labelNames: ["agent"], registers });
    this.turnsEnded = new Counter({
      name: "a2a_router_tasks_total",
      help: "Task turns ended, by agent and final state",
      labelNames: ["agent", "state"],
      registers,
    });
    this.turnSeconds = new Histogram({
      name: "a2a_router_turn_duration_seconds",
      help: "Duration of task turns",
      labelNames: ["agent"],
      registers,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 600],
    });
    this.eventsRelayed = new Counter({ name: "a2a_router_events_total", help: "Task events committed to the log and relayed to streams", registers });
    this.sseStreams = new Gauge({ name: "a2a_router_sse_streams", help: "Open SSE streams", registers });
    this.hubRests = new Counter({
      name: "a2a_router_hub_rests_total",
      help: "Times a hub agent's socket was not read for a while for sending past a rate, by limit (own: limits.hubBytesPerSecond; shared: limits.hubSharedBytesPerSecond, while another agent sends)",
      labelNames: ["limit"],
      registers,
    });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge("a2a_router_tasks_live", "Tasks with a turn in progress", live.liveTasks);
    gauge("a2a_router_stream_subscribers", "Streams attached to live tasks", live.streams);
    gauge("a2a_router_queue_depth", "Events buffered in live stream queues", live.bufferedEvents);
    gauge("a2a_router_commit_queue_depth", "Events waiting to be committed to the store", live.pendingCommits);
    gauge("a2a_router_stream_log_fallbacks", "Times a lagging stream switched from its live queue to the log", live.logFallbacks);
    gauge("a2a_router_hub_agents_online", "WebSocket hub agents connected and registered", live.hubAgents);
    gauge("a2a_router_hub_agents_paused", "Hub agents whose socket is not read until the store has their updates", live.hubAgentsPaused);
  }

  taskStarted(task: Task): void {
    this.tasksStarted.inc({ agent: task.agentId });
  }

  turnEnded(task: Task, durationMs: number): void {
    this.turnsEnded.inc({ agent: task.agentId, state: task.status.state });
    this.turnSeconds.observe({ agent: task.agentId }, durationMs / 1000);
  }

  eventsCommitted(events: LoggedEvent[]): void {
    this.eventsRelayed.inc(events.length);
  }
}
