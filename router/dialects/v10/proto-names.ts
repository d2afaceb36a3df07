import { TaskError } from "../../core/errors.js";
import { isRecord } from "../shared/translate-helpers.js";

/**
 * Members whose value is a google.protobuf.Struct or Value (`metadata`, a data part's `data`): their keys are
 * the sender's own, never field names, so they are passed through as written.
 */
const FREE_FORM = new Set(["metadata", "data"]);

/**
 * A v1.0 request as its translators read it: ProtoJSON parsers accept a field by its JSON name (`taskId`) or
 * by its proto name (`task_id`), so every proto name in the request is read as its JSON name, at every depth
 * except inside free-form members. The one place both v1.0 bindings (JSON-RPC params, REST bodies and query
 * parameters) go through; a request written in JSON names alone is returned as it came, without a copy.
 * Naming one field both ways is refused, as ProtoJSON parsers refuse a field given twice.
 */
export function readProtoNames(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const read = readProtoNames(item);
      if (read !== item) (out ??= value.slice())[i] = read;
    });
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const name = key.includes("_") ? jsonName(key) : key;
    const read = FREE_FORM.has(name) ? item : readProtoNames(item);
    if (name === key && read === item) continue;
    out ??= { ...value };
    if (name !== key) {
      if (Object.hasOwn(value, name)) throw TaskError.invalidParams(`${key} and ${name} name the same field`, name);
      delete out[key];
    }
    out[name] = read;
  }
  return out ?? value;
}

/** A proto field name's JSON name (protoc's rule): `task_id` -> `taskId`, `push_notification_config` -> `pushNotificationConfig`. */
function jsonName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
