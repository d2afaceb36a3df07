/** Picks the runtime's text model from the environment (docs/eliza.md documents the variables). */
import { LocalModel } from "./local.js";
import { OpenAiModel } from "./openai.js";
import type { ModelProviderName, TextModel } from "./text-model.js";

export type { ModelProviderName, TextModel } from "./text-model.js";
export { LocalModel } from "./local.js";
export { OpenAiModel, type OpenAiModelOptions } from "./openai.js";

/** Used when `ELIZA_MODEL_PROVIDER=openai` names no `OPENAI_BASE_URL`. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
/** Used when `ELIZA_MODEL` is not set. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

const PROVIDERS: readonly ModelProviderName[] = ["local", "openai"];

/**
 * `ELIZA_MODEL_PROVIDER` = `local` | `openai` (default: `openai` when `OPENAI_BASE_URL` is set, else `local`);
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `ELIZA_MODEL` (TEXT_LARGE), `ELIZA_SMALL_MODEL` (TEXT_SMALL, default:
 * `ELIZA_MODEL`). Throws an Error naming the variable when a value is not allowed.
 */
export function modelFromEnv(env: NodeJS.ProcessEnv): TextModel {
  const baseUrl = env.OPENAI_BASE_URL?.trim() || undefined;
  const requested = env.ELIZA_MODEL_PROVIDER?.trim().toLowerCase() || (baseUrl ? "openai" : "local");
  if (!PROVIDERS.includes(requested as ModelProviderName)) {
    throw new Error(`ELIZA_MODEL_PROVIDER must be one of ${PROVIDERS.join(", ")}; got "${env.ELIZA_MODEL_PROVIDER}"`);
  }
  if (requested === "local") return new LocalModel();
  const url = baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  try {
    new URL(url);
  } catch {
    throw new Error(`OPENAI_BASE_URL is not a URL: "${url}"`);
  }
  const largeModel = env.ELIZA_MODEL?.trim() || DEFAULT_OPENAI_MODEL;
  return new OpenAiModel({
    baseUrl: url,
    apiKey: env.OPENAI_API_KEY?.trim() || undefined,
    largeModel,
    smallModel: env.ELIZA_SMALL_MODEL?.trim() || largeModel,
  });
}
