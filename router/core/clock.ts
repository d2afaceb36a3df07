/**
 * The current time as an ISO 8601 string, as every event and task carries it. Formatted once per
 * millisecond: a fast agent's events arrive many to a millisecond, and a Date and its string per event
 * were a measurable share of appending one.
 */
let lastMs = -1;
let lastIso = "";

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
