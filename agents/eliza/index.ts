/**
 * The Eliza-style agent runtime, hosted by the router as the agent `eliza` (docs/eliza.md), and the
 * package entry point `a2a-router/eliza`:
 * - embedding: `import { createElizaAgent } from "a2a-router/eliza"`;
 * - plugin authors: `import type { Plugin, Action, Handler, HandlerCallback, ActionResult, ActionParameter,
 *   ActionParameters, Content, Memory, State, Provider, Evaluator, Character, IAgentRuntime, Route,
 *   RouteRequest, RouteResponse } from "a2a-router/eliza"` (the elizaOS shapes, see types.ts), and the values
 *   elizaOS plugins import from "@elizaos/core": `Service`, `logger`, `ModelType`, `EventType`; plus helpers
 *   such as `ProgressiveMessage`. A plugin written for elizaOS's plugin-starter template loads with its import
 *   path as the only change (docs/eliza-plugins.md, "Porting an elizaOS plugin").
 * The rest is exported for tests and for code that drives the runtime directly.
 */
import { pino, type Logger } from "pino";
import type { MemoryRecordStore } from "../../router/core/store.js";
import { checkCharacter, defaultCharacter, loadCharacterFile } from "./character.js";
import { HostedElizaAgent, type ElizaAgent } from "./connector.js";
import { DEFAULT_TURN_TIMEOUT_MS, ELIZA_AGENT_ID } from "./defaults.js";
import { modelFromEnv, type TextModel } from "./models/index.js";
import { setLoggerBackend } from "./logger.js";
import { checkPlugin, loadPluginFile, oneLine } from "./plugin-loader.js";
import { bootstrapPlugin } from "./plugins/bootstrap/index.js";
import { examplePlugin } from "./plugins/example/index.js";
import { AgentRuntime } from "./runtime.js";
import type { Character, Plugin } from "./types.js";

export interface ElizaAgentOptions {
  /** Where conversations (memories) live, roomId = the A2A contextId: any router store (memory, SQLite, Redis) is one. */
  store: MemoryRecordStore;
  logger?: Logger;
  /** A character JSON file (`--character`, config `eliza.character`). */
  characterPath?: string;
  /** A character object (wins over `characterPath`). */
  character?: Character;
  /** Plugin files (`--eliza-plugin`, config `eliza.plugins`): ES modules whose default export is a Plugin. */
  pluginPaths?: string[];
  /** Plugin objects registered after the file plugins (for embedding and tests). */
  plugins?: Plugin[];
  /**
   * OPENAI_BASE_URL, OPENAI_API_KEY, ELIZA_MODEL, ELIZA_SMALL_MODEL, ELIZA_MODEL_PROVIDER=local|openai
   * (default: openai when OPENAI_BASE_URL is set, else local). Default: process.env.
   */
  env?: NodeJS.ProcessEnv;
  /** A model instance (wins over the environment's choice). */
  model?: TextModel;
  /** How long one turn may take before it fails (default DEFAULT_TURN_TIMEOUT_MS). */
  turnTimeoutMs?: number;
}

/** Built-in plugins a character may name in its `plugins` list. */
const BUILT_IN_PLUGINS: Record<string, Plugin | undefined> = {
  bootstrap: undefined, // always registered
  "@elizaos/plugin-bootstrap": undefined,
  example: examplePlugin,
};

function builtInPlugins(character: Character, label: string, logger: Logger): Plugin[] {
  const out: Plugin[] = [];
  for (const name of (character.plugins as string[] | undefined) ?? []) {
    if (!(name in BUILT_IN_PLUGINS)) {
      logger.warn({ plugin: name }, `${label}: plugin "${name}" is not built in; load plugin files with --eliza-plugin`);
      continue;
    }
    const plugin = BUILT_IN_PLUGINS[name];
    if (plugin) out.push(plugin);
  }
  return out;
}

/** Runs `step`; a failure is rethrown as one line prefixed with `label`. */
async function labelled<T>(label: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const message = oneLine(err instanceof Error ? err.message : String(err));
    throw new Error(message.startsWith(label) ? message : `${label}: ${message}`);
  }
}

/** A plugin's `config` without its unset entries (elizaOS plugins fill it from possibly unset env vars). */
function definedSettings(config: Plugin["config"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(config ?? {})) if (value !== undefined) out[key] = value;
  return out;
}

/** Why createElizaAgent refused to start; `exitCode` 2 tells the CLI it is a configuration error. */
export class ElizaStartupError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(oneLine(message));
    this.name = "ElizaStartupError";
  }
}

/**
 * Builds the hosted `eliza` agent: character, model, bootstrap plugin, the character's built-in plugins,
 * plugin files, plugin `init`s, then the plugins' services (started with their static `start`; the agent's
 * `close()` stops them). With a `logger`, the `logger` elizaOS plugins import writes to it. Rejects with an ElizaStartupError (exitCode 2) whose message is ONE line
 * naming the file (or the environment variable) and the problem when a character or plugin is bad.
 */
export async function createElizaAgent(options: ElizaAgentOptions): Promise<ElizaAgent> {
  try {
    return await buildAgent(options);
  } catch (err) {
    if (err instanceof ElizaStartupError) throw err;
    throw new ElizaStartupError(err instanceof Error ? err.message : String(err));
  }
}

async function buildAgent(options: ElizaAgentOptions): Promise<ElizaAgent> {
  if (options.logger) setLoggerBackend(options.logger);
  const logger = options.logger ?? pino({ enabled: false });
  const env = options.env ?? process.env;
  const characterLabel = options.character ? "character option" : options.characterPath ? `character file ${options.characterPath}` : "built-in character";
  const character = options.character
    ? checkCharacter(options.character, characterLabel)
    : options.characterPath
      ? await loadCharacterFile(options.characterPath)
      : defaultCharacter();
  const model = options.model ?? modelFromEnv(env);
  const turnTimeoutMs = options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  if (!Number.isFinite(turnTimeoutMs) || turnTimeoutMs <= 0) throw new Error(`turnTimeoutMs must be a positive number; got ${turnTimeoutMs}`);

  const runtime = new AgentRuntime({ agentId: ELIZA_AGENT_ID, character, model, store: options.store, logger, env });
  runtime.registerPlugin(bootstrapPlugin);
  const sources = new Map<Plugin, string>();
  for (const plugin of builtInPlugins(character, characterLabel, logger)) {
    await labelled(`built-in plugin ${plugin.name}`, () => runtime.registerPlugin(plugin));
    sources.set(plugin, `built-in plugin ${plugin.name}`);
  }
  for (const path of options.pluginPaths ?? []) {
    const label = `plugin file ${path}`;
    const plugin = await labelled(label, () => loadPluginFile(path));
    await labelled(label, () => runtime.registerPlugin(plugin));
    sources.set(plugin, label);
  }
  for (const given of options.plugins ?? []) {
    const label = `plugin ${String((given as { name?: unknown })?.name ?? "(unnamed)")}`;
    const plugin = await labelled(label, () => checkPlugin(given, label));
    await labelled(label, () => runtime.registerPlugin(plugin));
    sources.set(plugin, label);
  }
  for (const plugin of runtime.plugins) {
    await labelled(`${sources.get(plugin) ?? `plugin ${plugin.name}`}: init failed`, () => plugin.init?.(definedSettings(plugin.config), runtime));
  }
  try {
    for (const plugin of runtime.plugins) {
      const label = sources.get(plugin) ?? `plugin ${plugin.name}`;
      for (const service of plugin.services ?? []) {
        await labelled(`${label}: service ${service.serviceType ?? service.name} failed to start`, () => runtime.registerService(service));
      }
      if (plugin.models && Object.keys(plugin.models).length > 0) {
        logger.info({ plugin: plugin.name, models: Object.keys(plugin.models) }, "plugin models are not used: the model comes from ELIZA_MODEL_PROVIDER");
      }
    }
  } catch (err) {
    await runtime.stop(); // the services that did start
    throw err;
  }
  logger.info({ character: character.name, model: model.provider, actions: runtime.actions.map((a) => a.name) }, "eliza agent ready");
  return new HostedElizaAgent(runtime, options.store, turnTimeoutMs);
}

export type { ElizaAgent } from "./connector.js";
export { Service, type ServiceClass } from "./service.js";
export { logger, type ElizaLogger, type LogMethod } from "./logger.js";
export {
  EventType,
  type EventTypeName,
  type EventHandler,
  type EventPayload,
  type MessagePayload,
  type RunEventPayload,
  type ActionEventPayload,
  type ModelEventPayload,
  type PluginEvents,
} from "./events.js";
export { hostedRoutes, pluginRoutePath, PLUGIN_ROUTES_PREFIX, type HostedRoute } from "./routes.js";
export type { PluginRoute } from "./runtime.js";
export { HostedElizaAgent, skillsOf } from "./connector.js";
export { AgentRuntime, normalizeActionName } from "./runtime.js";
export { handleMessage, MAX_MODEL_ATTEMPTS, type MessageHooks, type MessageOutcome } from "./message-handler.js";
export { processActions, type ActionOutcome, type TurnCallback } from "./process-actions.js";
export { parseKeyValueXml, escapeXml, unescapeXml } from "./xml.js";
export { ReplyTextExtractor } from "./text-stream.js";
export { VisibleReply, CALLBACK_SEPARATOR, type CallbackSnapshot } from "./visible-reply.js";
export { rebuildAssistantText, toTranscript, type ConversationMessage } from "./transcript.js";
export { compileParameters, toJsonSchema, type ParameterOutcome } from "./parameters.js";
export { composePromptFromState, messageHandlerTemplate, parametersTemplate, shouldRespondTemplate } from "./templates.js";
export { shouldBypassShouldRespond } from "./should-respond.js";
export { checkCharacter, loadCharacterFile, defaultCharacter, CHARACTER_SCHEMA } from "./character.js";
export { checkPlugin, loadPluginFile } from "./plugin-loader.js";
export { modelFromEnv, LocalModel, OpenAiModel, type TextModel, type ModelProviderName } from "./models/index.js";
export { bootstrapPlugin } from "./plugins/bootstrap/index.js";
export { examplePlugin } from "./plugins/example/index.js";
export { ProgressiveMessage, numberSetting } from "./plugins/example/progress.js";
export { TurnTimeoutError } from "./turn.js";
export * from "./defaults.js";
export * from "./types.js";
