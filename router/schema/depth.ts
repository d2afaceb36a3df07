/**
 * The deepest JSON the router accepts from anyone (clients, hub agents, upstream agents). Deeper values
 * cannot be serialized again (JSON.stringify recurses and overflows the stack in the thousands of levels),
 * so one hostile frame could otherwise wedge the store writes of every task.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether a parsed JSON value nests deeper than `max`. Recursive, but never deeper than `max` calls, so safe
 * on any input; no allocation per node (it runs on every hub frame).
 */
export function exceedsDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  return value !== null && typeof value === "object" && deeper(value, max);
}

/** Whether `v` (an object or array, at `left` levels from the limit) has a descendant past it. */
function deeper(v: object, left: number): boolean {
  if (left <= 0) return true;
  if (Array.isArray(v)) {
    for (const child of v as unknown[]) if (child !== null && typeof child === "object" && deeper(child, left - 1)) return true;
    return false;
  }
  // JSON.parse makes only own, enumerable, data properties (a "__proto__" key too): for-in sees exactly those.
  for (const key in v) {
    const child = (v as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object" && deeper(child, left - 1)) return true;
  }
  return false;
}
