/**
 * The agent runtime: the registry of actions, providers, evaluators, services, routes and event handlers,
 * state composition, the model and the memories. The message pipeline (message-handler.ts) and the action
 * chain (process-actions.ts) run on top of it; nothing here knows about A2A.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { MemoryRecordStore } from "../../router/core/store.js";
import { EventRegistry, EventType, type EventHandler } from "./events.js";
import { fromRecord, toRecord } from "./memory.js";
import type { TextModel } from "./models/text-model.js";
import { compileParameters, type ParameterValidator } from "./parameters.js";
import { ServiceRegistry, type Service, type ServiceClass } from "./service.js";
import type { Action, Character, Evaluator, GenerateTextParams, IAgentRuntime, Memory, ModelTypeName, Plugin, Provider, Route, State, UUID } from "./types.js";

/** A plugin route with the name of the plugin that serves it. */
export interface PluginRoute extends Route {
  pluginName: string;
}

export interface AgentRuntimeOptions {
  agentId: UUID;
  character: Character;
  model: TextModel;
  store: MemoryRecordStore;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

/** How many recent messages `getMemories` returns by default (and the RECENT_MESSAGES provider shows). */
export const DEFAULT_RECENT_MESSAGES = 20;

/** "Book flight" and "BOOK_FLIGHT" name the same action. */
export function normalizeActionName(name: string): string {
  return name
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, "_");
}

export class AgentRuntime implements IAgentRuntime {
  readonly agentId: UUID;
  character: Character;
  readonly logger: Logger;
  readonly model: TextModel;
  readonly #store: MemoryRecordStore;
  readonly #env: NodeJS.ProcessEnv;
  readonly #actions: Action[] = [];
  readonly #providers: Provider[] = [];
  readonly #evaluators: Evaluator[] = [];
  readonly #plugins: Plugin[] = [];
  readonly #parameterValidators = new Map<Action, ParameterValidator>();
  readonly #services = new ServiceRegistry();
  readonly #events = new EventRegistry();
  readonly #routes: PluginRoute[] = [];
  /** Per room, the id of the response being prepared; an older one is stale (elizaOS: latestResponseIds). */
  readonly latestResponseIds = new Map<string, string>();

  constructor(options: AgentRuntimeOptions) {
    this.agentId = options.agentId;
    this.character = options.character;
    this.model = options.model;
    this.logger = options.logger;
    this.#store = options.store;
    this.#env = options.env ?? {};
  }

  get actions(): readonly Action[] {
    return this.#actions;
  }
  get providers(): readonly Provider[] {
    return this.#providers;
  }
  get evaluators(): readonly Evaluator[] {
    return this.#evaluators;
  }
  get plugins(): readonly Plugin[] {
    return this.#plugins;
  }
  /** Every plugin's routes, in registration order. */
  get routes(): readonly PluginRoute[] {
    return this.#routes;
  }

  /** Registers an action; throws when its name is taken or a parameter schema is invalid. */
  registerAction(action: Action): void {
    const key = normalizeActionName(action.name);
    if (this.#actions.some((a) => normalizeActionName(a.name) === key)) {
      throw new Error(`action ${action.name} is already registered`);
    }
    this.#parameterValidators.set(action, compileParameters(action));
    this.#actions.push(action);
    this.#actions.sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
  }

  registerProvider(provider: Provider): void {
    if (this.#providers.some((p) => p.name === provider.name)) throw new Error(`provider ${provider.name} is already registered`);
    this.#providers.push(provider);
  }

  registerEvaluator(evaluator: Evaluator): void {
    if (this.#evaluators.some((e) => e.name === evaluator.name)) {
      throw new Error(`evaluator ${evaluator.name} is already registered`);
    }
    this.#evaluators.push(evaluator);
  }

  /**
   * Registers a plugin's actions, providers, evaluators, event handlers and routes. createElizaAgent runs the
   * `init`s afterwards, then starts the plugins' services (registerService), as elizaOS does.
   */
  registerPlugin(plugin: Plugin): void {
    for (const action of plugin.actions ?? []) this.registerAction(action);
    for (const provider of plugin.providers ?? []) this.registerProvider(provider);
    for (const evaluator of plugin.evaluators ?? []) this.registerEvaluator(evaluator);
    for (const [event, handlers] of Object.entries(plugin.events ?? {})) {
      for (const handler of handlers) this.registerEvent(event, handler);
    }
    for (const route of plugin.routes ?? []) this.#routes.push({ ...route, pluginName: plugin.name });
    this.#plugins.push(plugin);
  }

  async registerService(serviceClass: ServiceClass): Promise<void> {
    await this.#services.start(serviceClass, this);
  }

  getService<T extends Service = Service>(serviceType: string): T | null {
    return this.#services.get(serviceType) as T | null;
  }

  getServicesByType<T extends Service = Service>(serviceType: string): T[] {
    return this.#services.all(serviceType) as T[];
  }

  hasService(serviceType: string): boolean {
    return this.#services.get(serviceType) !== null;
  }

  registerEvent(event: string, handler: EventHandler): void {
    this.#events.register(event, handler);
  }

  async emitEvent(event: string | string[], params: Record<string, unknown>): Promise<void> {
    await this.#events.emit(event, { ...params, runtime: this }, (name, err) => this.logger.warn({ err, event: name }, "event handler failed"));
  }

  /** Stops every service (the last started first); the runtime takes no more turns after this. */
  async stop(): Promise<void> {
    await this.#services.stopAll((type, err) => this.logger.warn({ err, service: type }, "service failed to stop"));
  }

  /** The action called `name`, or whose simile it is. */
  getAction(name: string): Action | undefined {
    const key = normalizeActionName(name);
    return this.#actions.find((a) => normalizeActionName(a.name) === key) ?? this.#actions.find((a) => a.similes?.some((s) => normalizeActionName(s) === key));
  }

  /** The compiled parameter validator of a registered action. */
  parameterValidator(action: Action): ParameterValidator {
    let validator = this.#parameterValidators.get(action);
    if (!validator) this.#parameterValidators.set(action, (validator = compileParameters(action)));
    return validator;
  }

  /** `character.settings.secrets[key]`, then `character.settings[key]`, then the environment, else null. */
  getSetting(key: string): string | number | boolean | null {
    const settings = this.character.settings ?? {};
    const secrets = (settings.secrets ?? {}) as Record<string, unknown>;
    for (const value of [secrets[key], settings[key], this.#env[key]]) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
    }
    return null;
  }

  /** Asks the model; the character's `system` is the system message unless the caller gives one. */
  async useModel(type: ModelTypeName, params: GenerateTextParams): Promise<string> {
    const out = await this.model.generate(type, { ...params, system: params.system ?? this.character.system });
    // Not awaited: an observer must not hold the reply back.
    void this.emitEvent(EventType.MODEL_USED, { type, source: this.model.provider });
    return out;
  }

  async createMemory(memory: Memory, _tableName = "messages"): Promise<UUID> {
    const id = memory.id ?? randomUUID();
    await this.#store.addMemory(toRecord({ ...memory, id, createdAt: memory.createdAt ?? Date.now() }, this.agentId));
    return id;
  }

  async getMemories({ roomId, count = DEFAULT_RECENT_MESSAGES }: { roomId: UUID; count?: number }): Promise<Memory[]> {
    const records = await this.#store.listMemories(roomId, count);
    return records.map(fromRecord);
  }

  /**
   * Runs the providers into a State: every provider that is neither dynamic nor private, plus those named
   * in `includeList`, by `position`. Each provider sees the state composed so far. `values` starts with the
   * template variables of elizaOS's templates (agentName, actionNames, messageText, userName, roomId, characterBio)
   * and ends with `providers` = every provider's text, which is also `state.text`.
   */
  async composeState(message: Memory, includeList: string[] = []): Promise<State> {
    const wanted = new Set(includeList.map((n) => n.toUpperCase()));
    const selected = this.#providers
      .filter((p) => wanted.has(p.name.toUpperCase()) || (!p.dynamic && !p.private))
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    const bio = this.character.bio;
    const state: State = {
      values: {
        agentName: this.character.name,
        actionNames: this.#actions.map((a) => a.name).join(", "),
        messageText: message.content.text ?? "",
        userName: "user",
        roomId: message.roomId,
        characterBio: Array.isArray(bio) ? bio.join(" ") : (bio ?? ""),
      },
      data: { providers: {} },
      text: "",
    };
    const texts: string[] = [];
    for (const provider of selected) {
      try {
        const result = await provider.get(this, message, state);
        if (result.text) texts.push(result.text);
        Object.assign(state.values, result.values ?? {});
        (state.data.providers as Record<string, unknown>)[provider.name] = result.data ?? {};
      } catch (err) {
        this.logger.warn({ err, provider: provider.name }, "provider failed; its part of the state is left out");
      }
    }
    state.text = texts.join("\n\n");
    state.values.providers = state.text;
    return state;
  }
}
