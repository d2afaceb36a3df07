import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { assertDeliverable, connectLookup, type PushUrlPolicy } from "./url-policy.js";

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  policy: PushUrlPolicy;
}

/**
 * POSTs one notification and resolves with the HTTP status. node:http rather than fetch, so that each
 * connection resolves its host through the policy's `lookup` (the address checked is the address used) and
 * redirects are never followed (a 3xx is a failed delivery, not a hop to wherever it points).
 */
export function postWebhook(req: WebhookRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(req.url);
      assertDeliverable(url, req.policy);
    } catch (err) {
      return reject(err);
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const lookup = connectLookup(req.policy);
    const outgoing = send(
      url,
      {
        method: "POST",
        headers: { ...req.headers, "Content-Length": String(Buffer.byteLength(req.body)) },
        signal: req.signal,
        // A connection of our own per delivery: no pooled socket opened under another resolution is reused.
        agent: false,
        ...(lookup && { lookup }),
      },
      (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("error", reject);
      },
    );
    outgoing.once("error", reject);
    outgoing.end(req.body);
  });
}
