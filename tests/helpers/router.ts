import { startRouter, type RouterOptions, type RunningRouter } from "../../router/index.js";

/** Starts a router on an ephemeral loopback port with an in-memory store unless told otherwise. */
export function testRouter(options: RouterOptions = {}): Promise<RunningRouter> {
  return startRouter({ host: "127.0.0.1", port: 0, store: "memory", ...options });
}
