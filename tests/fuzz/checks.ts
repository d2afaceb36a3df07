import { RPC_ERROR_CODES } from "../../router/rpc/errors.js";
import { leakIn } from "../edge/helpers.js";

/** What every answer must look like, whatever was sent. */

const KNOWN_CODES = new Set<number>(Object.values(RPC_ERROR_CODES));

/** Throws (with the offending text) when a JSON-RPC response is malformed, an internal error, or leaks. */
export function checkResponse(response: unknown, where: string): void {
  const text = JSON.stringify(response);
  const leak = leakIn(text);
  if (leak) throw new Error(`${where}: response leaks ${leak}: ${text.slice(0, 500)}`);
  if (!response || typeof response !== "object" || Array.isArray(response)) throw new Error(`${where}: not a response object: ${text.slice(0, 300)}`);
  const r = response as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
  if (r.jsonrpc !== "2.0") throw new Error(`${where}: jsonrpc is not "2.0": ${text.slice(0, 300)}`);
  if ("result" in r === "error" in r) throw new Error(`${where}: needs exactly one of result/error: ${text.slice(0, 300)}`);
  if (r.error) {
    if (typeof r.error.code !== "number" || !KNOWN_CODES.has(r.error.code)) throw new Error(`${where}: unknown error code: ${text.slice(0, 300)}`);
    if (typeof r.error.message !== "string" || r.error.message === "") throw new Error(`${where}: error without a message: ${text.slice(0, 300)}`);
    // -32603 means the router failed on its own: a bug the fuzz is here to find.
    if (r.error.code === RPC_ERROR_CODES.INTERNAL_ERROR) throw new Error(`${where}: internal error: ${text.slice(0, 300)}`);
  }
}

/** A JSON-RPC body: one response, a non-empty batch of them, or nothing (notifications only). */
export function checkBody(body: unknown, where: string): void {
  if (body === undefined) return;
  if (Array.isArray(body)) {
    if (body.length === 0) throw new Error(`${where}: empty batch answer`);
    for (const [i, r] of body.entries()) checkResponse(r, `${where}[${i}]`);
  } else checkResponse(body, where);
}

/** The JSON-RPC responses inside SSE text (`data:` lines); checks each. */
export function checkSseFrames(frames: string, where: string): number {
  let n = 0;
  for (const line of frames.split("\n")) {
    if (!line.startsWith("data:")) continue;
    checkResponse(JSON.parse(line.slice(5).trim()), `${where} (stream)`);
    n++;
  }
  return n;
}
