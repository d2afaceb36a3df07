/**
 * The action chain, where this runtime keeps the promises elizaOS's types make:
 * - actions run in the order the model listed them;
 * - `validate()` gates each one;
 * - parameters are extracted from the model's `<params>`, coerced and validated; an invalid parameter fails
 *   the action with a clear error and the handler never runs; required parameters that are only missing
 *   make the runtime ask for them (ask-back.ts): the question is sent, the outcome names them
 *   (`missingParameters`, with the `parameters` given so far) and the chain stops, to go on when the user
 *   answers;
 * - `values` of every finished action are merged into `state.values` of the next one;
 * - `continueChain: false` stops the chain;
 * - a throwing handler becomes a failed ActionResult and the chain goes on;
 * - every `cleanup` runs once the chain is over, whatever happened (last registered first, like `defer`).
 * An action that fails (unknown, invalid or missing parameters, a throwing `validate()` or handler) is also
 * reported to the user through the callback, as a replacing status ("BOOK_FLIGHT failed: ..."): the reply
 * already told them it would happen. `validate()` answering false is not a failure: the action just does not
 * apply, and the user is not told.
 * Each handler that runs is framed by the ACTION_STARTED and ACTION_COMPLETED events (awaited, like elizaOS).
 */
import { questionFor } from "./ask-back-text.js";
import { EventType } from "./events.js";
import type { AgentRuntime } from "./runtime.js";
import type { ActionResult, Content, HandlerOptions, Memory, State } from "./types.js";
import type { XmlRecord, XmlValue } from "./xml.js";

/** A callback as the turn sees it: the content plus the name of the action that sent it. */
export type TurnCallback = (content: Content, from: string) => Promise<Memory[]>;

/** One action's outcome, as reported in the final status metadata (no functions). */
export interface ActionOutcome {
  action: string;
  success: boolean;
  text?: string;
  error?: string;
  values?: Record<string, unknown>;
  data?: Record<string, unknown>;
  /** The required parameters the action still lacks: the runtime asked for them (the turn waits for input). */
  missingParameters?: string[];
  /** With `missingParameters`: the valid parameters given so far. */
  parameters?: Record<string, unknown>;
}

export interface ProcessActionsOptions {
  signal?: AbortSignal;
  /** Text an action streams with `options.onStreamChunk` (append semantics). */
  onStreamChunk?: (chunk: string) => Promise<void>;
  /** Called right before an action's handler runs (after validate and parameters passed). */
  onActionStart?: (action: string) => void;
  /** Parameters given in earlier turns, by action name: what this turn's `<params>` add to (asking back). */
  earlier?: Record<string, Record<string, unknown>>;
}

/** The text the user sees when an action fails: names the action and the cause. */
export function actionFailureText(action: string, reason: string): string {
  return `${action} failed: ${reason}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function outcome(action: string, result: ActionResult): ActionOutcome {
  const out: ActionOutcome = { action, success: result.success };
  if (result.text !== undefined) out.text = result.text;
  if (result.error !== undefined) out.error = errorText(result.error);
  if (result.values !== undefined) out.values = result.values;
  if (result.data !== undefined) out.data = result.data;
  return out;
}

/** ACTION_STARTED / ACTION_COMPLETED for `action`, in the room of `message`. */
function actionEvent(runtime: AgentRuntime, event: string, message: Memory, content: Content): Promise<void> {
  return runtime.emitEvent(event, { roomId: message.roomId, world: message.roomId, messageId: message.id, source: message.content.source, content });
}

/** The parameter validator's error names the action ("BOOK: ..."); the failure text names it already. */
function withoutActionPrefix(action: string, error: string): string {
  return error.startsWith(`${action}: `) ? error.slice(action.length + 2) : error;
}

/** The `<params>` element for an action (its name matched case-insensitively). */
function paramsFor(params: XmlRecord | undefined, actionName: string): XmlValue | undefined {
  if (!params) return undefined;
  if (actionName in params) return params[actionName];
  const key = Object.keys(params).find((k) => k.toUpperCase() === actionName.toUpperCase());
  return key === undefined ? undefined : params[key];
}

/**
 * Runs the actions listed in `responses[*].content.actions` (with `content.params` as the `<params>`
 * block) and returns one outcome per action that was considered, in order.
 */
export async function processActions(
  runtime: AgentRuntime,
  message: Memory,
  responses: Memory[],
  state: State,
  callback: TurnCallback,
  options: ProcessActionsOptions = {},
): Promise<ActionOutcome[]> {
  const outcomes: ActionOutcome[] = [];
  const results: ActionResult[] = [];
  const cleanups: Array<{ action: string; cleanup: () => void | Promise<void> }> = [];
  const values: Record<string, unknown> = {};
  const log = runtime.logger;
  /** Records a failed outcome (`error`); when `reason` is given, also tells the user why. */
  const fail = async (name: string, error: string, reason?: string) => {
    log.warn({ action: name, error }, "action failed");
    const result: ActionResult = { success: false, error };
    results.push(result);
    outcomes.push(outcome(name, result));
    // A canceled or timed-out turn is over: nobody is left to tell.
    if (reason === undefined || options.signal?.aborted) return;
    try {
      await callback({ text: actionFailureText(name, reason), merge: "replace" }, name);
    } catch (err) {
      log.warn({ action: name, err }, "could not report an action failure");
    }
  };
  try {
    chain: for (const response of responses) {
      const params = response.content.params as XmlRecord | undefined;
      for (const requested of response.content.actions ?? []) {
        if (options.signal?.aborted) break chain;
        const action = runtime.getAction(requested);
        if (!action) {
          await fail(requested, `unknown action "${requested}"`, "there is no such action");
          continue;
        }
        const name = action.name;
        const actionState: State = {
          values: { ...state.values, ...values },
          data: { ...state.data, actionResults: [...results] },
          text: state.text,
        };
        let allowed: boolean;
        try {
          allowed = action.validate ? await action.validate(runtime, message, actionState) : true;
        } catch (err) {
          await fail(name, `${name}: validate() threw: ${errorText(err)}`, `could not check whether it applies: ${errorText(err)}`);
          continue;
        }
        if (!allowed) {
          await fail(name, `${name}: validate() refused to run it here`);
          continue;
        }

        let parameters: Record<string, unknown> | undefined;
        if (action.parameters?.length) {
          const checked = runtime.parameterValidator(action)(paramsFor(params, name) ?? paramsFor(params, requested), options.earlier?.[name]);
          if (!checked.ok && checked.missing && !options.signal?.aborted) {
            // Only missing: ask for them, and stop here; the user's answer goes on with this action.
            log.info({ action: name, missing: checked.missing }, "action asks for its missing parameters");
            const result: ActionResult = { success: false, error: checked.error };
            results.push(result);
            outcomes.push({ ...outcome(name, result), missingParameters: checked.missing, parameters: checked.parameters ?? {} });
            await callback({ text: questionFor(action, checked.missing), merge: "replace" }, name);
            break chain;
          }
          if (!checked.ok) {
            await fail(name, checked.error, withoutActionPrefix(name, checked.error));
            continue;
          }
          parameters = checked.parameters;
        }

        const previous = [...results];
        const handlerOptions: HandlerOptions = {
          parameters,
          actionContext: {
            previousResults: previous,
            getPreviousResult: (n) => {
              const i = outcomes.findLastIndex((o) => o.action.toUpperCase() === n.toUpperCase());
              return i >= 0 ? results[i] : undefined;
            },
          },
          onStreamChunk: options.onStreamChunk,
          signal: options.signal,
        };
        options.onActionStart?.(name);
        await actionEvent(runtime, EventType.ACTION_STARTED, message, { actions: [name], actionStatus: "started" });
        let result: ActionResult;
        try {
          result = (await action.handler(runtime, message, actionState, handlerOptions, (c) => callback(c, name), responses)) ?? {
            success: true,
          };
        } catch (err) {
          await actionEvent(runtime, EventType.ACTION_COMPLETED, message, { actions: [name], actionStatus: "failed", error: errorText(err) });
          await fail(name, `${name} threw: ${errorText(err)}`, errorText(err) || "it threw an error without a message");
          continue;
        }
        await actionEvent(runtime, EventType.ACTION_COMPLETED, message, {
          actions: [name],
          actionStatus: result.success ? "completed" : "failed",
          ...(result.text !== undefined && { text: result.text }),
          ...(result.error !== undefined && { error: errorText(result.error) }),
        });
        results.push(result);
        outcomes.push(outcome(name, result));
        if (result.cleanup) cleanups.push({ action: name, cleanup: result.cleanup });
        Object.assign(values, result.values ?? {});
        if (result.continueChain === false) break chain;
      }
    }
  } finally {
    for (const { action, cleanup } of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log.warn({ action, err }, "action cleanup failed");
      }
    }
  }
  return outcomes;
}
