/**
 * Action parameters: taken from the model's `<params>` block, coerced to their schema's types, validated
 * with ajv (defaults filled). A required or invalid parameter fails the action with a clear error instead
 * of running it with garbage. Validators are compiled once, when the action is registered.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Action, ActionParameter, ActionParameterSchema } from "./types.js";
import type { XmlValue } from "./xml.js";

const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false });
addFormats.default(ajv);

/**
 * The outcome of extracting one action's parameters. A failure whose only problem is required parameters
 * that were not given names them (`missing`) with the valid ones that were (`parameters`): the runtime asks
 * the user for them instead of failing.
 */
export type ParameterOutcome =
  | { ok: true; parameters: Record<string, unknown> }
  | { ok: false; error: string; missing?: string[]; parameters?: Record<string, unknown> };

/**
 * Checks and completes the parameters the model gave one action; `earlier`: the values given before (an
 * answer to the question for the missing ones), which what is given now adds to and overrides.
 */
export type ParameterValidator = (given: XmlValue | undefined, earlier?: Record<string, unknown>) => ParameterOutcome;

/** Turns an elizaOS parameter schema into plain JSON Schema (`enumValues` is elizaOS's alias of `enum`). */
export function toJsonSchema(schema: ActionParameterSchema): Record<string, unknown> {
  const { enumValues, properties, items, ...rest } = schema;
  const out: Record<string, unknown> = { ...rest };
  if (out.enum === undefined && enumValues !== undefined) out.enum = enumValues;
  if (properties) {
    out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, toJsonSchema(v)]));
  }
  if (items) out.items = toJsonSchema(items);
  return out;
}

/**
 * Compiles the validator of an action's parameters. Throws an Error naming the action and the parameter
 * when a parameter's schema is not valid JSON Schema.
 */
export function compileParameters(action: Action): ParameterValidator {
  const params = action.parameters ?? [];
  for (const p of params) {
    if (typeof p?.name !== "string" || p.name === "") throw new Error(`action ${action.name}: a parameter has no name`);
    if (!p.schema || typeof p.schema !== "object") {
      throw new Error(`action ${action.name}: parameter "${p.name}" has no schema`);
    }
    try {
      ajv.compile(toJsonSchema(p.schema));
    } catch (err) {
      throw new Error(`action ${action.name}: parameter "${p.name}" has an invalid schema: ${(err as Error).message}`);
    }
  }
  const validate = ajv.compile({
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, toJsonSchema(p.schema)])),
    required: params.filter((p) => p.required).map((p) => p.name),
  });
  return (given, earlier) => checkParameters(action.name, params, validate, given, earlier);
}

function checkParameters(
  actionName: string,
  params: ActionParameter[],
  validate: ValidateFunction,
  given: XmlValue | undefined,
  earlier: Record<string, unknown> = {},
): ParameterOutcome {
  const raw = typeof given === "object" ? given : {};
  const values: Record<string, unknown> = {};
  for (const p of params) {
    const value = lookup(raw, p.name);
    if (value === undefined || value === "") {
      if (earlier[p.name] !== undefined) values[p.name] = earlier[p.name];
      continue; // absent: the default (if any) fills it
    }
    values[p.name] = precoerce(value, p.schema);
  }
  if (validate(values)) return { ok: true, parameters: values };
  const errors = validate.errors ?? [];
  const problems = errors.map(describe);
  const error = `${actionName}: ${[...new Set(problems)].join("; ")}`;
  const missing = errors.every((e) => e.keyword === "required" && e.instancePath === "")
    ? errors.map((e) => (e.params as { missingProperty: string }).missingProperty)
    : [];
  if (missing.length === 0) return { ok: false, error };
  // In the action's order, so the question reads as the action lists them.
  const ordered = params.map((p) => p.name).filter((name) => missing.includes(name));
  return { ok: false, error, missing: ordered, parameters: values };
}

/** Exact name first, then case-insensitive: models are loose with case. */
function lookup(record: Record<string, XmlValue>, name: string): XmlValue | undefined {
  if (name in record) return record[name];
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

/** ajv coerces scalars; arrays and objects written as text are decoded here (JSON, or a comma list). */
function precoerce(value: XmlValue, schema: ActionParameterSchema): unknown {
  if (typeof value !== "string") {
    if (schema.type === "array") return Object.values(value);
    return value;
  }
  const text = value.trim();
  if (schema.type === "array") {
    if (text.startsWith("[")) return parseJsonOr(text);
    return text
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }
  if (schema.type === "object" && text.startsWith("{")) return parseJsonOr(text);
  return text;
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // ajv then reports the type mismatch
  }
}

function describe(error: ErrorObject): string {
  if (error.keyword === "required") {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    const where = error.instancePath ? `parameter "${pathName(error.instancePath)}" lacks "${missing}"` : "";
    return where || `missing required parameter "${missing}"`;
  }
  const detail =
    error.keyword === "enum"
      ? `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`
      : (error.message ?? "is invalid");
  return `parameter "${pathName(error.instancePath)}" ${detail}`;
}

/** `/origin` -> `origin`, `/legs/0/date` -> `legs[0].date`. */
function pathName(instancePath: string): string {
  return instancePath
    .split("/")
    .filter((s) => s !== "")
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join("");
}
