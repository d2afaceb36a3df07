/**
 * A value's JSON, exactly as `JSON.stringify` writes it, handed out in pieces of about `PIECE_CHARS` instead of
 * as one string. A 10 MB text part serialized at once is a 10 MB string (V8 builds a large result as a chain of
 * parts and copies it once more when it is flattened to be written or hashed), and such strings outlive their
 * use in V8's large-object space until a full collection; in pieces, nothing larger than a piece is made, and
 * every piece dies young. Used where a value may be large and is only streamed somewhere: an HTTP answer
 * (router/http/rpc-route.ts), a hash (stable message ids), a store row's bytes.
 */

/** About how long each piece is (a long string is cut into pieces of this many characters). */
export const PIECE_CHARS = 64 * 1024;

/**
 * Writes `JSON.stringify(value)` to `sink` in order, in pieces: joined, they are exactly its text (also for
 * `toJSON`, skipped `undefined` members, `null` for non-finite numbers and holes). A long string is cut only
 * between code points, so each piece is well-formed on its own (UTF-8 encodes the pieces as it would the
 * whole). Returns false, writing nothing, where JSON.stringify returns undefined (`value` is undefined, a
 * function or a symbol).
 */
export function writeJson(value: unknown, sink: (piece: string) => void, pieceChars = PIECE_CHARS): boolean {
  // Nearly every value is a small one, and V8's own stringify is several times faster than a walk in JS.
  if (fewSmall(value, pieceChars)) {
    const json = JSON.stringify(value);
    if (json === undefined) return false;
    sink(json);
    return true;
  }
  const out = new PieceWriter(sink, pieceChars);
  const written = out.value(value, "");
  out.flush();
  return written;
}

/** The pieces of `value`'s JSON, collected (a caller that needs them all before it can use any). */
export function jsonPieces(value: unknown, pieceChars = PIECE_CHARS): string[] {
  const pieces: string[] = [];
  writeJson(value, (p) => pieces.push(p), pieceChars);
  return pieces;
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

class PieceWriter {
  #sink: (piece: string) => void;
  #max: number;
  #held: string[] = [];
  #heldChars = 0;

  constructor(sink: (piece: string) => void, max: number) {
    this.#sink = sink;
    this.#max = max;
  }

  flush(): void {
    if (this.#heldChars === 0) return;
    this.#sink(this.#held.length === 1 ? this.#held[0]! : this.#held.join(""));
    this.#held = [];
    this.#heldChars = 0;
  }

  #put(text: string): void {
    this.#held.push(text);
    this.#heldChars += text.length;
    if (this.#heldChars >= this.#max) this.flush();
  }

  /** JSON.stringify's SerializeJSONProperty: false where it yields undefined (the member is skipped). */
  value(value: unknown, key: string): boolean {
    return this.#resolved(withToJson(value, key));
  }

  /** `value` once its toJSON (if any) has been applied. */
  #resolved(value: unknown): boolean {
    if (typeof value === "string") {
      if (value.length <= this.#max) this.#put(JSON.stringify(value));
      else this.#longString(value);
      return true;
    }
    if (value === null || typeof value !== "object") {
      const json = JSON.stringify(value);
      if (json === undefined) return false;
      this.#put(json);
      return true;
    }
    if (value instanceof String || value instanceof Number || value instanceof Boolean) {
      this.#put(JSON.stringify(value));
      return true;
    }
    if (Array.isArray(value)) this.#array(value);
    else this.#object(value as Record<string, unknown>);
    return true;
  }

  #array(items: unknown[]): void {
    this.#put("[");
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.#put(",");
      if (!this.value(items[i], String(i))) this.#put("null");
    }
    this.#put("]");
  }

  #object(obj: Record<string, unknown>): void {
    this.#put("{");
    let first = true;
    for (const key of Object.keys(obj)) {
      const member = withToJson(obj[key], key);
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      this.#put(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      this.#resolved(member);
    }
    this.#put("}");
  }

  /** A string longer than a piece: quoted and escaped slice by slice, never cutting a surrogate pair. */
  #longString(text: string): void {
    this.#put('"');
    for (let at = 0; at < text.length; ) {
      let end = Math.min(at + this.#max, text.length);
      const last = text.charCodeAt(end - 1);
      // A high surrogate at the cut goes with its pair (a slice of one character keeps both).
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - 1 > at ? -1 : 1;
      const quoted = JSON.stringify(text.slice(at, end));
      this.#put(quoted.slice(1, -1));
      at = end;
    }
    this.#put('"');
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
