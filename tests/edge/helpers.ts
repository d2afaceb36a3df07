import { request } from "node:http";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

/**
 * One HTTP request with node:http, where fetch cannot go: any Host/Origin header, a chosen local address
 * (127.0.0.2 is another client on loopback), OPTIONS with custom headers.
 */
export function raw(
  url: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(opts.path ?? "/", url);
    const req = request(target, { method: opts.method ?? "GET", headers: opts.headers, localAddress: opts.localAddress, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** A JSON-RPC POST body. */
export function rpcBody(method: string, params: unknown, id: string | number = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** Patterns that must never appear in an error a client sees. */
export const LEAK_PATTERNS: RegExp[] = [
  /is not a function/,
  /Cannot read prop/,
  /Cannot set prop/,
  /is not defined/,
  /is not iterable/,
  /at .*\.[jt]s:\d/,
  /\bTypeError\b/,
  /\bReferenceError\b/,
  /\bRangeError\b/,
  /\bSyntaxError\b/,
  /Unexpected token/,
  /" is not valid JSON/,
  /\/work\/|node_modules|file:\/\//,
  /undefined \(reading/,
];

/** The first leak pattern a text matches, if any. */
export function leakIn(text: string): RegExp | undefined {
  return LEAK_PATTERNS.find((p) => p.test(text));
}
