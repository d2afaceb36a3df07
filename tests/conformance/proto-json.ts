import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * A strict ProtoJSON reader of A2A v1.0 objects, made from the spec's own proto file (never a copy of its
 * field lists): as Python protobuf's `json_format.ParseDict` does by default, any member that is not a field
 * of the message (by JSON name or proto name) is an error, at every depth. Scalars, enums and the well-known
 * types (Struct, Value, Timestamp) are not looked into.
 */

/** The spec's proto (A2A v1.0.1, lf.a2a.v1, as published), as the TCK builds its strict parser from it. */
export const A2A_PROTO = fileURLToPath(new URL("../../schemas/a2a-v1.0.1.proto", import.meta.url));

interface Field {
  /** The message type of the field (of a map's values), or undefined for scalars, enums and well-known types. */
  type?: string;
  repeated: boolean;
  map: boolean;
}

type Messages = Map<string, Map<string, Field>>;

let cached: Messages | undefined;

/** Every message of the proto: its fields by JSON name and by proto name. */
export function protoMessages(path = A2A_PROTO): Messages {
  if (cached && path === A2A_PROTO) return cached;
  const messages: Messages = new Map();
  const stack: Array<Map<string, Field> | undefined> = [];
  const names = new Set<string>();
  const text = readFileSync(path, "utf8").replace(/\/\/.*$/gm, "");
  for (const m of text.matchAll(/^\s*message\s+(\w+)\s*\{/gm)) names.add(m[1]!);
  for (const line of text.split("\n")) {
    const open = /^\s*(message|enum|oneof|service)\s+(\w+)\s*\{/.exec(line);
    if (open) {
      const current = stack.at(-1);
      if (open[1] === "message") {
        const fields = new Map<string, Field>();
        messages.set(open[2]!, fields);
        stack.push(fields);
      } else stack.push(open[1] === "oneof" ? current : undefined); // a oneof's fields are its message's
      continue;
    }
    const fields = stack.at(-1);
    const field = /^\s*(repeated\s+|optional\s+)?(?:map<\s*\w+\s*,\s*([\w.]+)\s*>|([\w.]+))\s+(\w+)\s*=\s*\d+/.exec(line);
    if (field && fields) {
      const typeName = field[2] ?? field[3]!;
      const f: Field = { repeated: field[1]?.trim() === "repeated", map: field[2] !== undefined, ...(names.has(typeName) && { type: typeName }) };
      fields.set(field[4]!, f);
      fields.set(
        field[4]!.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
        f,
      );
    }
    for (const _ of line.matchAll(/\}/g)) stack.pop();
  }
  if (path === A2A_PROTO) cached = messages;
  return messages;
}

/** The members of `value` that a strict ProtoJSON parser of message `type` refuses, as paths (empty: accepted). */
export function unknownMembers(value: unknown, type: string, path = "$"): string[] {
  const fields = protoMessages().get(type);
  if (!fields) throw new Error(`no message ${type} in the proto`);
  if (!value || typeof value !== "object" || Array.isArray(value)) return [`${path} is not an object`];
  const out: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const field = fields.get(key);
    if (!field) {
      out.push(`${path}.${key}`);
      continue;
    }
    if (!field.type) continue;
    const items = field.map
      ? Object.entries(member as object)
      : field.repeated
        ? (member as unknown[]).map((v, i) => [String(i), v] as const)
        : [["", member] as const];
    for (const [k, v] of items) out.push(...unknownMembers(v, field.type, k === "" ? `${path}.${key}` : `${path}.${key}[${k}]`));
  }
  return out;
}
