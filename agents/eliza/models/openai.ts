/**
 * Any OpenAI-compatible chat-completions server: `POST {baseUrl}/chat/completions` with `stream: true`,
 * `Authorization: Bearer {apiKey}`, the character's system prompt as the system message. The SSE answer is
 * parsed with eventsource-parser; each `choices[0].delta.content` is streamed on as it arrives.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ModelType, type GenerateTextParams, type ModelTypeName } from "../types.js";
import type { TextModel } from "./text-model.js";

export interface OpenAiModelOptions {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Model name for TEXT_LARGE. */
  largeModel: string;
  /** Model name for TEXT_SMALL. */
  smallModel: string;
}

/** The SSE data line that ends an OpenAI stream. */
const DONE = "[DONE]";

export class OpenAiModel implements TextModel {
  readonly provider = "openai" as const;
  readonly #options: OpenAiModelOptions;
  readonly #url: string;

  constructor(options: OpenAiModelOptions) {
    this.#options = options;
    this.#url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  }

  async generate(type: ModelTypeName, params: GenerateTextParams): Promise<string> {
    const model = type === ModelType.TEXT_SMALL ? this.#options.smallModel : this.#options.largeModel;
    const messages = [...(params.system ? [{ role: "system", content: params.system }] : []), { role: "user", content: params.prompt }];
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model, messages, stream: true }),
        signal: params.signal,
      });
    } catch (err) {
      if (params.signal?.aborted) throw params.signal.reason;
      const cause = (err as { cause?: { message?: string } }).cause;
      throw new Error(`model server unreachable at ${this.#url}: ${cause?.message ?? (err as Error).message}`);
    }
    if (!response.ok) {
      const body = await response.text().catch(() => "");
      throw new Error(`model server answered ${response.status} ${response.statusText}: ${serverMessage(body)}`);
    }
    const contentType = response.headers.get("content-type") ?? "";
    if (!contentType.includes("text/event-stream")) {
      // A server that ignores `stream: true` answers one JSON completion.
      const text = completionText(await response.json());
      if (text) params.onStreamChunk?.(text);
      return text;
    }
    return this.#readStream(response, params);
  }

  async #readStream(response: Response, params: GenerateTextParams): Promise<string> {
    let text = "";
    let failure: Error | undefined;
    let done = false;
    const parser = createParser({
      onEvent: (event: EventSourceMessage) => {
        if (done || failure) return;
        if (event.data.trim() === DONE) {
          done = true;
          return;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(event.data);
        } catch {
          failure = new Error(`model server sent a malformed stream event: ${event.data.slice(0, 200)}`);
          return;
        }
        const error = (chunk as { error?: unknown }).error;
        if (error) {
          failure = new Error(`model server error: ${serverMessage(JSON.stringify({ error }))}`);
          return;
        }
        const delta = (chunk as { choices?: Array<{ delta?: { content?: unknown } }> }).choices?.[0]?.delta?.content;
        if (typeof delta === "string" && delta !== "") {
          text += delta;
          params.onStreamChunk?.(delta);
        }
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(bytes, { stream: true }));
        if (done || failure) break;
      }
    } catch (err) {
      if (params.signal?.aborted) throw params.signal.reason;
      throw new Error(`model stream from ${this.#url} broke: ${(err as Error).message}`);
    }
    if (failure) throw failure;
    return text;
  }
}

/** The human part of an error body: OpenAI's `{error:{message}}`, a `{message}`, or the raw text. */
function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
    if (typeof parsed.error?.message === "string") return parsed.error.message;
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  const trimmed = body.trim();
  return trimmed === "" ? "(empty body)" : trimmed.slice(0, 500);
}

function completionText(body: unknown): string {
  const content = (body as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
  return typeof content === "string" ? content : "";
}
