/**
 * The runtime's public types, exported to plugin authors as `a2a-router/eliza`
 * (`import type { Plugin, Action } from "a2a-router/eliza"`). They mirror elizaOS's shapes (`@elizaos/core`:
 * Action, Handler, ActionResult, ActionParameter, Content, Memory, State, Provider, Evaluator, Plugin,
 * Character, IAgentRuntime) so a plugin written for elizaOS ports with few changes: usually only the import
 * path.
 */
import type { Logger } from "pino";
import type { EventHandler, PluginEvents } from "./events.js";
import type { Service, ServiceClass } from "./service.js";

/** elizaOS spells ids as UUID strings; any string id works here. */
export type UUID = string;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Values providers and actions put into `state.values` (interpolated into templates as `{{key}}`). */
export type ProviderValue = unknown;
export type ProviderDataRecord = Record<string, unknown>;

/** The model sizes a runtime asks for; the provider maps each to a model name. */
export const ModelType = {
  TEXT_SMALL: "TEXT_SMALL",
  TEXT_LARGE: "TEXT_LARGE",
} as const;
export type ModelTypeName = (typeof ModelType)[keyof typeof ModelType];

/** How a callback's text combines with the previous callback of the same turn (docs/eliza-plugins.md, "Callbacks"). */
export type MergeMode = "replace" | "append";

/** What an agent or user says, plus what the agent decided. */
export interface Content {
  text?: string;
  thought?: string;
  actions?: string[];
  providers?: string[];
  source?: string;
  /** Callback text semantics: "replace" (default) replaces the previous callback text, "append" extends it. */
  merge?: MergeMode;
  inReplyTo?: UUID;
  /** True when the reply is a lone REPLY without providers (delivered without running actions). */
  simple?: boolean;
  /** Every callback text of the turn, in order (persisted on the assistant turn). */
  actionCallbackHistory?: string[];
  [key: string]: unknown;
}

/** One entry of a conversation. `roomId` is the A2A contextId (sessionId). */
export interface Memory {
  id?: UUID;
  entityId: UUID;
  agentId?: UUID;
  roomId: UUID;
  content: Content;
  createdAt?: number;
}

/** What providers composed for one message: `values` feed templates, `data` is structured, `text` is prose. */
export interface State {
  values: Record<string, ProviderValue>;
  data: ProviderDataRecord;
  text: string;
}

/** Sends content to the user while an action runs; resolves to the memories it created (none here). */
export type HandlerCallback = (content: Content) => Promise<Memory[]>;

export interface ActionContext {
  /** Results of the actions that ran earlier in this chain, in order. */
  previousResults: ActionResult[];
  getPreviousResult(actionName: string): ActionResult | undefined;
}

/**
 * An action's parameter values as its handler receives them (`options.parameters`): taken from the model's
 * `<params>` block, coerced to each schema's type, defaults filled, validated. Keyed by parameter name.
 */
export type ActionParameters = Record<string, unknown>;

export interface HandlerOptions {
  /** Parameters extracted from the model's `<params>` block, coerced and validated (defaults filled). */
  parameters?: ActionParameters;
  actionContext?: ActionContext;
  /** Streams text that extends the visible reply (append semantics, like model tokens). */
  onStreamChunk?: (chunk: string) => Promise<void>;
  /** Aborted when the turn is canceled or times out. */
  signal?: AbortSignal;
  [key: string]: unknown;
}

export type Handler = (
  runtime: IAgentRuntime,
  message: Memory,
  state?: State,
  options?: HandlerOptions,
  callback?: HandlerCallback,
  responses?: Memory[],
) => Promise<ActionResult | undefined | void>;

export type Validator = (runtime: IAgentRuntime, message: Memory, state?: State) => Promise<boolean>;

export interface ActionResult {
  success: boolean;
  text?: string;
  /** Merged into `state.values` of the next action in the chain. */
  values?: Record<string, ProviderValue>;
  data?: ProviderDataRecord;
  error?: string | Error;
  /** `false` stops the chain after this action. */
  continueChain?: boolean;
  /** Runs once the chain is over, whatever happened (also after errors, timeouts and cancels). */
  cleanup?: () => void | Promise<void>;
}

export interface ActionParameterSchema {
  type: "string" | "number" | "boolean" | "array" | "object";
  default?: JsonValue | null;
  enum?: string[];
  /** elizaOS alias of `enum`. */
  enumValues?: string[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  /** JSON Schema format ("date", "email", ...): checked by the validator; "date" marks a date for the local model. */
  format?: string;
  properties?: Record<string, ActionParameterSchema>;
  items?: ActionParameterSchema;
}

export type ActionParameterExampleValue = JsonValue;

export interface ActionParameter {
  name: string;
  description: string;
  required?: boolean;
  schema: ActionParameterSchema;
  examples?: ActionParameterExampleValue[];
}

export interface ActionExample {
  name: string;
  content: Content;
}

export interface Action {
  name: string;
  description: string;
  handler: Handler;
  validate: Validator;
  similes?: string[];
  examples?: ActionExample[][];
  /** Higher comes earlier in the prompt's action list and first among the local model's matches. */
  priority?: number;
  tags?: string[];
  parameters?: ActionParameter[];
}

export interface ProviderResult {
  text?: string;
  values?: Record<string, ProviderValue>;
  data?: ProviderDataRecord;
}

export interface Provider {
  name: string;
  description?: string;
  /** Dynamic providers run only when the model (or the caller) asks for them by name. */
  dynamic?: boolean;
  /** Lower runs first. */
  position?: number;
  /** Private providers never run implicitly either. */
  private?: boolean;
  get(runtime: IAgentRuntime, message: Memory, state: State): Promise<ProviderResult>;
}

export interface Evaluator {
  name: string;
  description: string;
  similes?: string[];
  examples?: unknown[];
  /** Run even when the turn ended without a response. */
  alwaysRun?: boolean;
  handler: Handler;
  validate: Validator;
}

/**
 * The request a plugin route's handler gets (an express request: these are the members to rely on). `body`
 * (parsed JSON) and `params` are as loosely typed as elizaOS's, so plugin code that reads them unchecked ports.
 */
export interface RouteRequest {
  // biome-ignore lint/suspicious/noExplicitAny: as loose as elizaOS's, so plugin code that reads it unchecked ports
  body?: any;
  /** Path parameters: strings, except express 5's wildcards (`*rest`), which are arrays of segments. */
  // biome-ignore lint/suspicious/noExplicitAny: as loose as elizaOS's, so plugin code that reads it unchecked ports
  params?: Record<string, any>;
  query?: Record<string, unknown>;
  headers?: Record<string, string | string[] | undefined>;
  method?: string;
  path?: string;
  url?: string;
}

/** The response a plugin route's handler writes (an express response: these are the members to rely on). */
export interface RouteResponse {
  status(code: number): RouteResponse;
  json(data: unknown): RouteResponse;
  send(data: unknown): RouteResponse;
  end(): RouteResponse;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  readonly headersSent: boolean;
}

/**
 * An HTTP route a plugin serves, mounted at `/api/plugins/{plugin name}{path}` on the router's port (behind
 * its API keys when they are configured). `path` may hold express parameters (`/items/:id`). `STATIC` routes
 * (elizaOS serves files with them) are not served here: they are skipped with a warning.
 */
export interface Route {
  type: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "STATIC";
  path: string;
  handler?: (req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime) => Promise<void> | void;
  name?: string;
  /** elizaOS shows public routes in its UI; here every route sits behind the router's API keys. */
  public?: boolean;
  filePath?: string;
  isMultipart?: boolean;
}

export interface Plugin {
  name: string;
  description?: string;
  actions?: Action[];
  providers?: Provider[];
  evaluators?: Evaluator[];
  /** Started once the `init`s ran (static `start(runtime)`), stopped at shutdown (`stop()`). */
  services?: ServiceClass[];
  /** Served under `/api/plugins/{name}/`. */
  routes?: Route[];
  /** Handlers by event name (see events.ts for what is emitted when). */
  events?: PluginEvents;
  /** Called once at start-up, after registration; may change `runtime.character.templates`. */
  init?: (config: Record<string, string>, runtime: IAgentRuntime) => Promise<void> | void;
  config?: Record<string, string | undefined>;
  /**
   * Accepted so elizaOS plugins load, not used: the model comes from the router's environment
   * (ELIZA_MODEL_PROVIDER, docs/eliza.md), and `tests` are elizaOS's own test runner's.
   */
  models?: Record<string, (runtime: IAgentRuntime, params: GenerateTextParams) => Promise<unknown>>;
  tests?: unknown[];
  dependencies?: string[];
  priority?: number;
}

/** Templates a character (or plugin, or code at runtime) may override. */
export interface TemplateType {
  shouldRespondTemplate?: string;
  messageHandlerTemplate?: string;
  [name: string]: string | undefined;
}

export interface MessageExample {
  name: string;
  content: Content;
}

export interface Character {
  name: string;
  bio?: string | string[];
  /** The system message every model request starts with. */
  system?: string;
  templates?: TemplateType;
  /** Read by `runtime.getSetting(key)` (after `settings.secrets`, before the environment). */
  settings?: Record<string, unknown>;
  messageExamples?: MessageExample[][];
  topics?: string[];
  adjectives?: string[];
  style?: { all?: string[]; chat?: string[]; post?: string[] };
  [key: string]: unknown;
}

/** One model request. `context` lets the offline `local` model decide without parsing prompts. */
export interface GenerateTextParams {
  prompt: string;
  system?: string;
  /** Receives the raw model output as it arrives. */
  onStreamChunk?: (chunk: string) => void;
  signal?: AbortSignal;
  context?: ModelRequestContext;
  /** elizaOS's sampling options: accepted, left to the model provider's defaults. */
  stopSequences?: string[];
  maxTokens?: number;
  temperature?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
}

export interface ModelRequestContext {
  /** `parameters`: the message answers a question for an action's missing parameters (`wanted`). */
  purpose: "shouldRespond" | "messageHandler" | "parameters";
  messageText: string;
  character: Character;
  actions: Action[];
  /** With `parameters`: the action and the parameters asked for. */
  wanted?: { action: string; parameters: ActionParameter[] };
}

/** What an action, provider or evaluator sees of the runtime. */
export interface IAgentRuntime {
  readonly agentId: UUID;
  character: Character;
  readonly actions: readonly Action[];
  readonly providers: readonly Provider[];
  readonly evaluators: readonly Evaluator[];
  readonly logger: Logger;
  getSetting(key: string): string | number | boolean | null;
  useModel(type: ModelTypeName, params: GenerateTextParams): Promise<string>;
  composeState(message: Memory, includeList?: string[]): Promise<State>;
  createMemory(memory: Memory, tableName?: string): Promise<UUID>;
  getMemories(params: { roomId: UUID; count?: number }): Promise<Memory[]>;
  registerAction(action: Action): void;
  registerProvider(provider: Provider): void;
  registerEvaluator(evaluator: Evaluator): void;
  /** The first running service of `serviceType`, or null. */
  getService<T extends Service = Service>(serviceType: string): T | null;
  /** Every running service of `serviceType`. */
  getServicesByType<T extends Service = Service>(serviceType: string): T[];
  hasService(serviceType: string): boolean;
  /** Starts a service class (its static `start(this)`) and keeps it until the agent stops. */
  registerService(serviceClass: ServiceClass): Promise<void>;
  registerEvent(event: string, handler: EventHandler): void;
  /** Calls every handler of the event(s) with `{...params, runtime}`; handler errors are logged, not thrown. */
  emitEvent(event: string | string[], params: Record<string, unknown>): Promise<void>;
}
