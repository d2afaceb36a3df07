/**
 * A plugin in the shape of elizaOS's plugin-starter template: an action, a provider, a service, HTTP routes
 * and event handlers, written against elizaOS's API. Its only tie to this package is the module it imports
 * from below; in elizaOS that is @elizaos/core, and tests/eliza/plugin-starter.test.ts checks that swapping the
 * one for the other is all it takes. Load it with `--eliza-plugin dist/agents/eliza/plugins/starter/index.js`.
 *
 * - HELLO_WORLD (action): greets ("hello world" picks it with the offline model) and counts the greetings in
 *   the service;
 * - HELLO_WORLD_PROVIDER (provider): a line of context for the prompt;
 * - StarterService (service "starter"): keeps the counters, started with the agent and stopped with it;
 * - GET /api/plugins/plugin-starter/helloworld and .../status (routes): a greeting, and the service's counters;
 * - MESSAGE_RECEIVED, ACTION_COMPLETED (events): counted by the service.
 */
import type {
  Action,
  ActionResult,
  HandlerCallback,
  IAgentRuntime,
  Memory,
  Plugin,
  Provider,
  ProviderResult,
  RouteRequest,
  RouteResponse,
  State,
} from "a2a-router/eliza";
import { EventType, Service, logger } from "a2a-router/eliza";

/** The greeting when the STARTER_GREETING setting is unset. */
const DEFAULT_GREETING = "Hello world!";

/** What the service has seen since it started. */
export interface StarterStats {
  messagesReceived: number;
  actionsCompleted: number;
  greetings: number;
}

/** Holds the plugin's state for the lifetime of the agent; other code finds it as runtime.getService("starter"). */
export class StarterService extends Service {
  static override serviceType = "starter";
  override capabilityDescription = "Counts the messages, actions and greetings the starter plugin has seen.";
  readonly stats: StarterStats = { messagesReceived: 0, actionsCompleted: 0, greetings: 0 };
  running = false;

  static override async start(runtime: IAgentRuntime): Promise<StarterService> {
    logger.info("starter service starting");
    const service = new StarterService(runtime);
    service.running = true;
    return service;
  }

  async stop(): Promise<void> {
    this.running = false;
    logger.info({ stats: this.stats }, "starter service stopped");
  }
}

function starterService(runtime: IAgentRuntime): StarterService | null {
  return runtime.getService<StarterService>(StarterService.serviceType);
}

const helloWorldAction: Action = {
  name: "HELLO_WORLD",
  similes: ["GREET", "SAY_HELLO"],
  description: "Greets the user with a hello world message",

  validate: async (_runtime: IAgentRuntime, _message: Memory, _state: State | undefined): Promise<boolean> => true,

  handler: async (runtime: IAgentRuntime, message: Memory, _state: State | undefined, _options: unknown, callback?: HandlerCallback): Promise<ActionResult> => {
    const greeting = String(runtime.getSetting("STARTER_GREETING") ?? DEFAULT_GREETING);
    const service = starterService(runtime);
    if (service) service.stats.greetings++;
    try {
      await callback?.({ text: greeting, actions: ["HELLO_WORLD"], source: message.content.source });
      return { success: true, text: greeting, data: { greetings: service?.stats.greetings ?? 0 } };
    } catch (error) {
      logger.error({ error }, "HELLO_WORLD could not answer");
      return { success: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
  },

  examples: [
    [
      { name: "{{userName}}", content: { text: "Can you say hello world?" } },
      { name: "{{agentName}}", content: { text: "Here it is.", actions: ["HELLO_WORLD"] } },
    ],
  ],
};

const helloWorldProvider: Provider = {
  name: "HELLO_WORLD_PROVIDER",
  description: "A line of context from the starter plugin",
  get: async (_runtime: IAgentRuntime, _message: Memory, _state: State | undefined): Promise<ProviderResult> => ({
    text: "The starter plugin is loaded.",
    values: { starterLoaded: true },
    data: {},
  }),
};

export const starterPlugin: Plugin = {
  name: "plugin-starter",
  description: "The elizaOS plugin-starter shape: action, provider, service, routes, events",
  config: {
    STARTER_GREETING: process.env.STARTER_GREETING,
  },
  async init(config: Record<string, string>) {
    if (config.STARTER_GREETING !== undefined && config.STARTER_GREETING.trim() === "") {
      throw new Error("STARTER_GREETING is set but empty");
    }
    logger.debug("starter plugin initialised");
  },
  routes: [
    {
      name: "hello-world-route",
      path: "/helloworld",
      type: "GET",
      handler: async (_req: RouteRequest, res: RouteResponse) => {
        res.json({ message: "Hello World!" });
      },
    },
    {
      name: "status-route",
      path: "/status",
      type: "GET",
      handler: async (_req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime) => {
        const service = starterService(runtime);
        if (!service) {
          res.status(503).json({ error: "the starter service is not running" });
          return;
        }
        res.json({ service: StarterService.serviceType, running: service.running, capability: service.capabilityDescription, ...service.stats });
      },
    },
  ],
  events: {
    [EventType.MESSAGE_RECEIVED]: [
      async (params) => {
        const service = starterService(params.runtime);
        if (service) service.stats.messagesReceived++;
        logger.debug({ keys: Object.keys(params) }, "MESSAGE_RECEIVED");
      },
    ],
    [EventType.ACTION_COMPLETED]: [
      async (params) => {
        const service = starterService(params.runtime);
        if (service) service.stats.actionsCompleted++;
      },
    ],
  },
  services: [StarterService],
  actions: [helloWorldAction],
  providers: [helloWorldProvider],
};

export default starterPlugin;
