/**
 * A deep copy of JSON-like data (tasks, events, messages) that shares its strings. Strings are immutable, so a
 * copy of one buys no safety, and `structuredClone` copies every one: committing a task that holds a 10 MB
 * text to the memory store made 10 MB more of it at each commit, and again at each read. Arrays and plain
 * objects are copied member by member (own enumerable string keys, as structuredClone and JSON see them);
 * anything else (a Date, a typed array, ...) goes to structuredClone, which also refuses what cannot be copied
 * (a function) with its DataCloneError.
 */
export function copyData<T>(value: T): T {
  return copied(value) as T;
}

function copied(value: unknown): unknown {
  if (value === null || typeof value !== "object") {
    // A function or symbol: structuredClone's own refusal.
    return typeof value === "function" || typeof value === "symbol" ? structuredClone(value) : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copied(value[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copied((value as Record<string, unknown>)[key]);
  return out;
}
