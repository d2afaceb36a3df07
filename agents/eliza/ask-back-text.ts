/** The question the runtime asks when an action's required parameters are missing (asking back). */
import type { Action } from "./types.js";

/** "Departure city" -> "departure city"; "SFO code" stays. */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** One question naming every missing parameter by its description, in the action's order. */
export function questionFor(action: Action, missing: readonly string[]): string {
  const described = missing.map((name) => {
    const description = action.parameters?.find((p) => p.name === name)?.description?.trim();
    return lowerFirst(description ? description.replace(/[.!?]+$/, "") : name);
  });
  const list = described.length === 1 ? described[0]! : `${described.slice(0, -1).join(", ")} and ${described.at(-1)!}`;
  const detail = described.length === 1 ? "one more detail" : "a few more details";
  return `I need ${detail} for ${action.name}: what ${described.length === 1 ? "is" : "are"} the ${list}?`;
}
