import type { DialectName } from "../core/model.js";
import type { Dialect, Operation } from "./dialect.js";
import { v01 } from "./v01.js";
import { v03 } from "./v03.js";
import { v10 } from "./v10.js";

/** Every dialect the router speaks. Add a dialect here and its methods are served on every endpoint. */
export const DIALECTS: readonly Dialect[] = [v01, v03, v10];

export function dialectByName(name: DialectName): Dialect {
  const d = DIALECTS.find((x) => x.name === name);
  if (!d) throw new Error(`dialect ${name} is not available`);
  return d;
}

export interface MethodBinding {
  operation: Operation;
  /** Dialects that name this method; more than one means "the dialect the task was created in". */
  dialects: Dialect[];
}

const BINDINGS = new Map<string, MethodBinding>();
for (const dialect of DIALECTS) {
  for (const [method, operation] of Object.entries(dialect.methods)) {
    const binding = BINDINGS.get(method);
    if (binding) binding.dialects.push(dialect);
    else BINDINGS.set(method, { operation, dialects: [dialect] });
  }
}

export function bindMethod(method: string): MethodBinding | undefined {
  return BINDINGS.get(method);
}

export type { Dialect, Operation } from "./dialect.js";
