import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { schemasDir } from "./paths.js";

// ajv-formats ships CJS with a default export; under NodeNext it arrives as the namespace.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

/** A validation failure, reduced to the field a human should look at. */
export interface SchemaIssue {
  /** Dotted path of the failing field, e.g. `message.parts[0].text`. */
  field: string;
  message: string;
}

/**
 * Every JSON Schema in schemas/, compiled once at start-up. Schemas are the source of truth for what
 * the router accepts; validators are looked up by `$id` (and `$id#/$defs/Name` refs).
 */
export class SchemaRegistry {
  #ajv: Ajv;
  #cache = new Map<string, ValidateFunction>();

  constructor(dir: string = schemasDir()) {
    // verbose: a failed oneOf keeps its branches, which describe() names ("exactly one of text, raw, ...").
    this.#ajv = new Ajv({ strict: false, allErrors: false, discriminator: true, useDefaults: false, verbose: true });
    addFormats(this.#ajv);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      this.#ajv.addSchema(JSON.parse(readFileSync(join(dir, file), "utf8")));
    }
  }

  /**
   * Validates `value` against the schema `ref`; returns the first issue, or undefined when valid. `subject`
   * names the value itself when the issue is with the whole of it (request params by default).
   */
  check(ref: string, value: unknown, subject = "params"): SchemaIssue | undefined {
    const validate = this.#compiled(ref);
    if (validate(value)) return undefined;
    return describe(validate.errors ?? [], subject);
  }

  #compiled(ref: string): ValidateFunction {
    let fn = this.#cache.get(ref);
    if (!fn) {
      fn = this.#ajv.getSchema(ref) ?? this.#ajv.compile({ $ref: ref });
      this.#cache.set(ref, fn);
    }
    return fn;
  }
}

/** Turns ajv's errors into one issue naming a field; the deepest error is the most specific. */
export function describe(errors: ErrorObject[], subject = "params"): SchemaIssue {
  const best = [...errors].sort((a, b) => depth(b) - depth(a))[0];
  if (!best) return { field: "", message: "is invalid" };
  let field = pointerToField(best.instancePath);
  const members = memberChoice(errors, best);
  if (members) return { field, message: `${field || subject} must have exactly one of ${members.join(", ")}` };
  if (best.keyword === "required") {
    const missing = (best.params as { missingProperty: string }).missingProperty;
    field = field ? `${field}.${missing}` : missing;
    return { field, message: `${field} is required` };
  }
  if (best.keyword === "additionalProperties") {
    const extra = (best.params as { additionalProperty: string }).additionalProperty;
    const at = field ? `${field}.${extra}` : extra;
    return { field: at, message: `${at} is not allowed` };
  }
  if (best.keyword === "discriminator") {
    const tag = (best.params as { tag: string }).tag;
    field = field ? `${field}.${tag}` : tag;
    return { field, message: `${field} must be one of the known kinds` };
  }
  if (best.keyword === "enum") {
    // ajv says "must be equal to one of the allowed values" without naming them: name them.
    const allowed = (best.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    const shown =
      allowed
        .slice(0, 12)
        .map((v) => JSON.stringify(v))
        .join(", ") + (allowed.length > 12 ? ", ..." : "");
    if (allowed.length > 0) return { field: field || subject, message: `${field || subject} must be one of ${shown}` };
  }
  return { field: field || subject, message: `${field || subject} ${best.message ?? "is invalid"}` };
}

/**
 * The members of a "one of these members" choice (a oneOf whose branches each only require one member:
 * v1.0's Part, StreamResponse) that failed where `best` failed: none or several of them were there, which
 * ajv reports as a missing first member or "must match exactly one schema".
 */
function memberChoice(errors: ErrorObject[], best: ErrorObject): string[] | undefined {
  const choice = errors.find((e) => e.keyword === "oneOf" && e.instancePath === best.instancePath && Array.isArray(e.schema));
  if (!choice || (best.keyword !== "required" && best !== choice)) return undefined;
  const members = (choice.schema as Array<Record<string, unknown>>).map((branch) => {
    const required = branch.required;
    return Object.keys(branch).length === 1 && Array.isArray(required) && required.length === 1 ? String(required[0]) : undefined;
  });
  return members.every((m) => m !== undefined) ? (members as string[]) : undefined;
}

function depth(e: ErrorObject): number {
  return e.instancePath.split("/").length + (e.keyword === "required" ? 1 : 0);
}

function pointerToField(pointer: string): string {
  if (!pointer) return "";
  let out = "";
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}
