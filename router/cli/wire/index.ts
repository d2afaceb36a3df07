import type { WireDialect } from "./dialect.js";
import type { DialectName } from "./model.js";
import { v01Wire } from "./v01.js";
import { v03Wire } from "./v03.js";
import { v10Wire } from "./v10.js";

/** The client side of each A2A dialect the CLI speaks (one file each); the commands see only model.ts shapes. */
export const WIRES: Readonly<Record<DialectName, WireDialect>> = { "v0.1": v01Wire, "v0.3": v03Wire, "v1.0": v10Wire };

export { type WireCall, type WireDialect, WireError } from "./dialect.js";
export * from "./model.js";
