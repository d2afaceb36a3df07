/**
 * The model's reply format (elizaOS's key/value XML):
 * `<response><thought/><actions>A,B</actions><providers/><text/><params><A><p>v</p></A></params></response>`.
 * Pure functions, no I/O: every wire edge case is a fast in-memory test.
 */

/** Keys whose value is a comma-separated list. */
const LIST_KEYS = new Set(["actions", "providers", "evaluators"]);
/** Keys whose value is a boolean. */
const BOOLEAN_KEYS = new Set(["simple"]);

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Decodes the five XML entities and numeric character references; anything else is left as written. */
export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A parsed element tree: leaves are decoded text, inner nodes map child names to children. */
export type XmlValue = string | XmlRecord;
export interface XmlRecord {
  [key: string]: XmlValue;
}

const ELEMENT = /<([A-Za-z_][\w.-]*)\s*>([\s\S]*?)<\/\1\s*>/g;

/** Children of `xml` as name -> raw inner text, in document order; null when there are none. */
function childElements(xml: string): Array<[string, string]> | null {
  const out: Array<[string, string]> = [];
  for (const m of xml.matchAll(ELEMENT)) out.push([m[1], m[2]]);
  return out.length > 0 ? out : null;
}

/** Parses nested elements: an element holding child elements becomes a record, a leaf its decoded text. */
export function parseElements(xml: string): XmlRecord | null {
  const children = childElements(xml);
  if (!children) return null;
  const out: XmlRecord = {};
  for (const [name, inner] of children) out[name] = parseElements(inner) ?? unescapeXml(inner.trim());
  return out;
}

/** The parsed `<response>`: strings, except list keys (string[]), `simple` (boolean) and `params` (records). */
export type KeyValueXml = Record<string, unknown>;

/**
 * Parses the model's reply the way elizaOS's `parseKeyValueXml` does: the first `<response>` block (or the
 * whole text when there is none, code fences stripped), one key per child element. `actions`, `providers`
 * and `evaluators` are split on commas; `simple` is a boolean; `params` keeps its nested elements
 * (`{ACTION: {param: "value"}}`). Returns null when no element is found (an incomplete or non-XML reply).
 */
export function parseKeyValueXml(text: string | null | undefined): KeyValueXml | null {
  if (!text) return null;
  const unfenced = text.replace(/```(?:xml)?/gi, "");
  const block = /<response\s*>([\s\S]*?)<\/response\s*>/.exec(unfenced);
  const body = block ? block[1] : unfenced;
  const elements = childElements(body);
  if (!elements) return null;
  const out: KeyValueXml = {};
  for (const [key, inner] of elements) {
    if (key in out) continue; // the first occurrence wins, as in elizaOS
    const value = unescapeXml(inner.trim());
    if (LIST_KEYS.has(key)) out[key] = splitList(value);
    else if (BOOLEAN_KEYS.has(key)) out[key] = value.toLowerCase() === "true";
    else if (key === "params") out[key] = parseElements(inner) ?? {};
    else out[key] = value;
  }
  return out;
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
