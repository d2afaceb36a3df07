import type { DialectName } from "../../core/model.js";
import type { UpstreamProtocol } from "../protocol.js";
import { v01Upstream } from "./v01.js";
import { v03Upstream } from "./v03.js";
import { v10Upstream } from "./v10.js";

/** Upstream protocols by dialect; add a dialect's client here. */
export const UPSTREAM_PROTOCOLS: Partial<Record<DialectName, UpstreamProtocol>> = {
  "v0.1": v01Upstream,
  "v0.3": v03Upstream,
  "v1.0": v10Upstream,
};

export function upstreamProtocol(dialect: DialectName): UpstreamProtocol {
  const p = UPSTREAM_PROTOCOLS[dialect];
  if (!p) throw new Error(`no upstream client for A2A ${dialect}`);
  return p;
}
