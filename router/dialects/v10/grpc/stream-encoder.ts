import { join } from "node:path";
import { type DescMessage, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { loadSync, type MethodDefinition } from "@grpc/proto-loader";
import { schemasDir } from "../../../schema/paths.js";
import { a2aService, messageType } from "./proto.js";

/**
 * The streamed events' encoder: ProtoJSON StreamResponse -> binary, as `encodeJson` (proto.ts) gives it, at a
 * third of its cost. A gRPC stream writes one message per event, and @bufbuild/protobuf's `fromJson` then
 * `toBinary` were most of the gRPC face's CPU an event (docs/benchmarks.md, fourteenth pass). This is the encoder
 * grpc-js's own users get from @grpc/proto-loader: the spec's proto (the source of the committed descriptor set)
 * loaded with camelCase field names, whose serializer is protobufjs's generated `fromObject` + `encode`.
 *
 * protobufjs reads the well-known types in their protobuf shape (a Timestamp as seconds and nanos, a Struct as
 * its fields of Values), not ProtoJSON's (an RFC 3339 string, a plain JSON object): `toProtobufjs` converts
 * exactly the fields of those types, walking only the parts of a message that can hold one, and hands every
 * other value through as it is. Everything else ProtoJSON says (enum names, base64 bytes, int64 strings,
 * unknown fields ignored, null as unset) protobufjs's `fromObject` reads the same way; tests/grpc holds the two
 * encoders to the same output.
 */

const TIMESTAMP = "google.protobuf.Timestamp";
const STRUCT = "google.protobuf.Struct";
const VALUE = "google.protobuf.Value";
const LIST_VALUE = "google.protobuf.ListValue";
const WELL_KNOWN = new Set([TIMESTAMP, STRUCT, VALUE, LIST_VALUE]);

type Convert = (json: JsonValue) => unknown;

/** One field of a message that holds (or can hold, below it) a well-known type: its JSON name and converter. */
interface ConvertedField {
  name: string;
  repeated: boolean;
  map: boolean;
  /** A google.protobuf.Value field, where null is a value (NullValue), not "unset". */
  nullable: boolean;
  convert: Convert;
}

const converters = new Map<string, Convert | null>();

/** The converter of a message type's ProtoJSON to protobufjs's object, or null when it holds no well-known type. */
function converterOf(desc: DescMessage): Convert | null {
  const known = converters.get(desc.typeName);
  if (known !== undefined) return known;
  if (WELL_KNOWN.has(desc.typeName)) {
    const wkt = wellKnown(desc.typeName);
    converters.set(desc.typeName, wkt);
    return wkt;
  }
  // A recursive type meets itself while compiling: it is pass-through until its own fields are known.
  converters.set(desc.typeName, null);
  const fields: ConvertedField[] = [];
  for (const field of desc.fields) {
    const message =
      field.fieldKind === "message" ||
      (field.fieldKind === "list" && field.listKind === "message") ||
      (field.fieldKind === "map" && field.mapKind === "message")
        ? field.message
        : undefined;
    const sub = message ? converterOf(message) : null;
    if (sub && message)
      fields.push({
        name: field.jsonName,
        repeated: field.fieldKind === "list",
        map: field.fieldKind === "map",
        nullable: message.typeName === VALUE,
        convert: sub,
      });
  }
  const convert = fields.length === 0 ? null : messageConverter(fields);
  converters.set(desc.typeName, convert);
  return convert;
}

function messageConverter(fields: ConvertedField[]): Convert {
  return (json) => {
    if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
    let out: Record<string, unknown> | undefined;
    for (const f of fields) {
      const value = json[f.name];
      if (value === undefined || (value === null && !f.nullable)) continue;
      out ??= { ...json };
      if (f.repeated && Array.isArray(value)) out[f.name] = value.map(f.convert);
      else if (f.map && value !== null && typeof value === "object" && !Array.isArray(value)) out[f.name] = mapValues(value, f.convert);
      else out[f.name] = f.convert(value);
    }
    return out ?? json;
  };
}

function mapValues(map: JsonObject, convert: Convert): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(map)) out[key] = convert(map[key]!);
  return out;
}

function wellKnown(typeName: string): Convert {
  switch (typeName) {
    case TIMESTAMP:
      return timestamp;
    case STRUCT:
      return struct;
    case VALUE:
      return value;
    default:
      return (json) => ({ values: Array.isArray(json) ? json.map(value) : [] });
  }
}

let lastTimestamp: { json: string; value: { seconds?: number; nanos?: number } } | undefined;

/** RFC 3339 -> seconds and nanos, read by @bufbuild/protobuf (the same checks as `encodeJson`); consecutive events share one. */
function timestamp(json: JsonValue): unknown {
  if (typeof json !== "string") return json;
  if (lastTimestamp?.json === json) return lastTimestamp.value;
  const ts = fromJson(TimestampSchema, json);
  // Zeros left out, as proto3 writes them (protobufjs writes a field that is set, even to zero).
  // Seconds as a number, not an int64 string: protobufjs's fromObject parses a string with Long.fromString on
  // every message (~0.1-0.3 us of ~2.7 an event, docs/benchmarks.md fifteenth pass); a Timestamp's range
  // (years 1-9999, |seconds| < 2.6e11) is exact in a double.
  const parsed: { seconds?: number; nanos?: number } = {};
  if (ts.seconds !== 0n) parsed.seconds = Number(ts.seconds);
  if (ts.nanos !== 0) parsed.nanos = ts.nanos;
  lastTimestamp = { json, value: parsed };
  return parsed;
}

function struct(json: JsonValue): unknown {
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new Error("a google.protobuf.Struct must be a JSON object");
  return { fields: mapValues(json, value) };
}

function value(json: JsonValue): unknown {
  if (json === null) return { nullValue: 0 };
  switch (typeof json) {
    case "string":
      return { stringValue: json };
    case "number":
      return { numberValue: json };
    case "boolean":
      return { boolValue: json };
    case "object":
      return Array.isArray(json) ? { listValue: { values: json.map(value) } } : { structValue: struct(json) };
    default:
      // undefined, a bigint: not JSON (the reference encoder refuses them too).
      throw new Error(`a google.protobuf.Value cannot be ${typeof json}`);
  }
}

const STREAM_RESPONSE = messageType("lf.a2a.v1.StreamResponse");

/** The serializer @grpc/proto-loader compiles for StreamResponse (SendStreamingMessage's response type). */
function loadSerializer(): (message: unknown) => Buffer {
  const definition = loadSync("a2a-v1.0.1.proto", { includeDirs: [schemasDir()] });
  const method = (definition[a2aService.typeName] as Record<string, MethodDefinition<unknown, unknown>> | undefined)?.SendStreamingMessage;
  if (!method) throw new Error(`${a2aService.typeName}.SendStreamingMessage is not in ${join(schemasDir(), "a2a-v1.0.1.proto")}`);
  return method.responseSerialize as (message: unknown) => Buffer;
}

let serializer: ((message: unknown) => Buffer) | undefined;
const convertStreamResponse = converterOf(STREAM_RESPONSE);

/**
 * Loads the proto and compiles the encoder (a few hundred ms; only a router with the gRPC face pays it): the face
 * calls it as it starts, so no stream's first event waits for it. Returns the serializer.
 */
export function prepareStreamEncoder(): (message: unknown) => Buffer {
  if (serializer) return serializer;
  serializer = loadSerializer();
  // protobufjs generates each type's fromObject and encode on first use: one event compiles them all.
  serializer(convertStreamResponse?.({ statusUpdate: { status: { timestamp: "1970-01-01T00:00:00Z", message: { parts: [{ data: {} }] } }, metadata: {} } }));
  return serializer;
}

/** A v1.0 StreamResponse's ProtoJSON (what the v1.0 dialect renders for an event) as its binary. */
export function encodeStreamResponse(json: unknown): Buffer {
  return (serializer ?? prepareStreamEncoder())(convertStreamResponse ? convertStreamResponse(json as JsonValue) : json);
}
