import type { GenerateTextParams, ModelTypeName } from "../types.js";

/** Which model provider a runtime uses (`ELIZA_MODEL_PROVIDER`). */
export type ModelProviderName = "local" | "openai";

/**
 * A text model. `generate` resolves to the whole reply and streams its raw output through
 * `params.onStreamChunk` as it arrives; it rejects with an Error carrying the server's message when the
 * model cannot answer, and with the signal's reason when `params.signal` aborts.
 */
export interface TextModel {
  readonly provider: ModelProviderName;
  generate(type: ModelTypeName, params: GenerateTextParams): Promise<string>;
}
