/**
 * An agent's question (a turn that ended `input-required`) as an MCP form elicitation, and the form's answer
 * as the next message of the task. An agent that names what it misses (`missingParameters`, as the hosted
 * Eliza agent does) gets one field per parameter; any other question one free-text field.
 */
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** The field of a question that names no parameters. */
export const ANSWER_FIELD = "answer";

/** The `elicitation/create` params asking `question`. */
export function elicitationFor(question: string, metadata: Record<string, unknown>): ElicitRequestFormParams {
  const missing = Array.isArray(metadata.missingParameters) ? metadata.missingParameters.filter((m): m is string => typeof m === "string" && m !== "") : [];
  const fields = missing.length > 0 ? missing : [ANSWER_FIELD];
  const properties: ElicitRequestFormParams["requestedSchema"]["properties"] = {};
  for (const field of fields) properties[field] = { type: "string", title: field, description: fields.length === 1 ? question : `${field}` };
  return {
    mode: "form",
    message: question || "The agent needs more input.",
    requestedSchema: { type: "object", properties, required: fields },
  };
}

/**
 * The text of the message that answers: one field's value as it is; several as `name: value` lines (the form
 * the hosted Eliza agent's extractor reads first). Undefined when the user did not accept or gave nothing.
 */
export function answerText(result: ElicitResult): string | undefined {
  if (result.action !== "accept" || !result.content) return undefined;
  const entries = Object.entries(result.content).filter(([, v]) => v !== undefined && v !== "");
  if (entries.length === 0) return undefined;
  const show = (v: unknown): string => (Array.isArray(v) ? v.join(", ") : String(v));
  if (entries.length === 1) return show(entries[0]![1]);
  return entries.map(([k, v]) => `${k}: ${show(v)}`).join("\n");
}
