/**
 * The deepest JSON the router accepts from anyone (clients, hub agents, upstream agents). Deeper values
 * cannot be serialized again (JSON.stringify recurses and overflows the stack in the thousands of levels),
 * so one hostile frame could otherwise wedge the store writes of every task.
 */
export const MAX_JSON_DEPTH = 100;

/** Whether a parsed JSON value nests deeper than `max` (iterative: safe on any input). */
export function exceedsDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}
