/**
 * A value's JSON, exactly as `JSON.stringify` writes it, handed out in pieces of about `PIECE_CHARS` instead of
 * as one string. A 10 MB text part serialized at once is a 10 MB string (V8 builds a large result as a chain of
 * parts and copies it once more when it is flattened to be written or hashed), and such strings outlive their
 * use in V8's large-object space until a full collection; in pieces, nothing larger than a piece is made, and
 * every piece dies young. Used where a value may be large and is only streamed somewhere: an HTTP answer
 * (router/http/rpc-route.ts), a hash (stable message ids), a store row's bytes.
 */

/**
 * About how long each piece is: a long string is cut into slices of this many characters (escaped, a slice may
 * be up to six times longer: `\u2028` for each character, at worst).
 */
export const PIECE_CHARS = 64 * 1024;

/**
 * `JSON.stringify(value)` in order, in pieces: joined, they are exactly its text (also for `toJSON`, skipped
 * `undefined` members, `null` for non-finite numbers and holes). A long string is cut only between code points,
 * so each piece is well-formed on its own (UTF-8 encodes the pieces as it would the whole). Nothing where
 * JSON.stringify returns undefined (`value` is undefined, a function or a symbol). Lazily: a consumer that
 * waits between pieces (a socket's backpressure) holds one piece at a time.
 */
export function* jsonPieces(value: unknown, pieceChars = PIECE_CHARS): Generator<string, void, undefined> {
  // Nearly every value is a small one, and V8's own stringify is several times faster than a walk in JS.
  if (fewSmall(value, pieceChars)) {
    const json = JSON.stringify(value);
    if (json !== undefined) yield json;
    return;
  }
  const out = new PieceWriter(pieceChars);
  for (const done of out.value(value, "")) if (done) yield done;
  const last = out.flush();
  if (last) yield last;
}

/**
 * `value`'s JSON when it is small (one piece: V8's own stringify), else undefined without serializing anything:
 * the cheap first step of a caller that keeps small JSON whole (event-bytes.ts).
 */
export function smallJson(value: unknown, pieceChars = PIECE_CHARS): string | undefined {
  return fewSmall(value, pieceChars) ? JSON.stringify(value) : undefined;
}

/** Hands `value`'s JSON pieces (jsonPieces) to `sink`, in order. */
export function writeJson(value: unknown, sink: (piece: string) => void, pieceChars = PIECE_CHARS): void {
  for (const piece of jsonPieces(value, pieceChars)) sink(piece);
}

/** Nodes a value may have to be taken as small without a walk of all of it. */
const SMALL_NODES = 64;

/**
 * True when `value` has at most SMALL_NODES strings, arrays and objects, whose strings hold at most `chars`
 * characters in all: its JSON is then about one piece (a toJSON may change that, which no model value has; the
 * pieces are still right, only fewer).
 */
function fewSmall(value: unknown, chars: number): boolean {
  let budget = SMALL_NODES;
  let left = chars;
  const visit = (v: unknown): boolean => {
    if (typeof v === "string") return (left -= v.length) >= 0 && --budget >= 0;
    if (v === null || typeof v !== "object") return true;
    if (--budget < 0) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!visit(v[i])) return false;
      return true;
    }
    for (const key in v) if (!visit((v as Record<string, unknown>)[key])) return false;
    return true;
  };
  return visit(value);
}

/** What JSON.stringify serializes for `value` under `key`: its toJSON's answer, if it has one. */
function withToJson(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== "object" && typeof value !== "bigint")) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === "function" ? toJSON.call(value, key) : value;
}

/**
 * The walk for a value that is not small. Its generators yield a finished piece, or "" for nothing yet (the
 * pieces are gathered in `#held` and handed out once about `max` characters long).
 */
class PieceWriter {
  #max: number;
  #held: string[] = [];
  #heldChars = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** What is held, as one piece ("" when nothing is). */
  flush(): string {
    if (this.#heldChars === 0) return "";
    const piece = this.#held.length === 1 ? this.#held[0]! : this.#held.join("");
    this.#held = [];
    this.#heldChars = 0;
    return piece;
  }

  /** Holds `text`; a finished piece once enough is held, else "". */
  #put(text: string): string {
    this.#held.push(text);
    this.#heldChars += text.length;
    return this.#heldChars >= this.#max ? this.flush() : "";
  }

  /** JSON.stringify's SerializeJSONProperty for `value` under `key` (the top level: nothing when undefined). */
  value(value: unknown, key: string): Generator<string, void, undefined> {
    return this.#resolved(withToJson(value, key));
  }

  /** `value` once its toJSON (if any) has been applied; its caller has checked that it is serialized. */
  *#resolved(value: unknown): Generator<string, void, undefined> {
    if (typeof value === "string") {
      if (value.length <= this.#max) yield this.#put(JSON.stringify(value));
      else yield* this.#longString(value);
      return;
    }
    if (value === null || typeof value !== "object" || value instanceof String || value instanceof Number || value instanceof Boolean) {
      const json = JSON.stringify(value);
      if (json !== undefined) yield this.#put(json);
      return;
    }
    if (Array.isArray(value)) yield* this.#array(value);
    else yield* this.#object(value as Record<string, unknown>);
  }

  *#array(items: unknown[]): Generator<string, void, undefined> {
    yield this.#put("[");
    for (let i = 0; i < items.length; i++) {
      if (i > 0) yield this.#put(",");
      const item = withToJson(items[i], String(i));
      if (item === undefined || typeof item === "function" || typeof item === "symbol") yield this.#put("null");
      else yield* this.#resolved(item);
    }
    yield this.#put("]");
  }

  *#object(obj: Record<string, unknown>): Generator<string, void, undefined> {
    yield this.#put("{");
    let first = true;
    for (const key of Object.keys(obj)) {
      const member = withToJson(obj[key], key);
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      yield this.#put(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      yield* this.#resolved(member);
    }
    yield this.#put("}");
  }

  /** A string longer than a piece: quoted and escaped slice by slice, never cutting a surrogate pair. */
  *#longString(text: string): Generator<string, void, undefined> {
    yield this.#put('"');
    for (let at = 0; at < text.length; ) {
      let end = Math.min(at + this.#max, text.length);
      const last = text.charCodeAt(end - 1);
      // A high surrogate at the cut goes with its pair (a slice of one character keeps both).
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - 1 > at ? -1 : 1;
      const quoted = JSON.stringify(text.slice(at, end));
      yield this.#put(quoted.slice(1, -1));
      at = end;
    }
    yield this.#put('"');
  }
}

const ENCODER = new TextEncoder();

/**
 * `value`'s JSON as UTF-8 bytes, in an ArrayBuffer of their exact size (it can be transferred to a worker), made
 * without ever holding the JSON as one string: serialized twice, once to size it and once into the bytes.
 */
export function jsonUtf8(value: unknown): Uint8Array {
  let length = 0;
  writeJson(value, (piece) => (length += Buffer.byteLength(piece)));
  const out = new Uint8Array(length);
  let at = 0;
  writeJson(value, (piece) => (at += ENCODER.encodeInto(piece, out.subarray(at)).written));
  return out;
}
