/**
 * Files a chat client attaches, as A2A file parts: a `data:` URL becomes inline `bytes` (base64), an http(s) URL
 * a `uri` the agent fetches. UIMessage `file` parts (`{type: "file", mediaType, url, filename?}`, as `useChat`
 * sends attachments) and the Responses API's `input_image` / `input_file` parts read through here.
 */
import type { FilePart } from "../../core/model.js";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";

export type FileRead = { ok: true; part: FilePart } | { ok: false; message: string; field: string };

/** Reads one UI file part; `field` names it in errors (`messages[2].parts[1]`). */
export function readFilePart(p: Record<string, unknown>, field: string): FileRead {
  if (typeof p.mediaType !== "string" || p.mediaType === "") return { ok: false, message: "a file part needs its mediaType", field: `${field}.mediaType` };
  if (typeof p.url !== "string" || p.url === "") return { ok: false, message: "a file part needs its url (a data: or http(s) URL)", field: `${field}.url` };
  if (p.filename !== undefined && typeof p.filename !== "string")
    return { ok: false, message: "a file part's filename must be a string", field: `${field}.filename` };
  const name = typeof p.filename === "string" && p.filename !== "" ? { name: p.filename } : {};
  const file = { ...name, mimeType: p.mediaType };
  if (/^https?:\/\//i.test(p.url)) return { ok: true, part: { kind: "file", file: { ...file, uri: p.url } } };
  const bytes = dataUrlBytes(p.url);
  if (bytes === undefined) return { ok: false, message: "a file part's url must be a data: URL or an http(s) URL", field: `${field}.url` };
  return { ok: true, part: { kind: "file", file: { ...file, bytes } } };
}

/** The media type a `data:` URL names (RFC 2397), or undefined when it is not one or names none. */
export function dataUrlType(url: string): string | undefined {
  const match = /^data:([^;,]+)[;,]/i.exec(url);
  return match ? match[1]!.trim().toLowerCase() : undefined;
}

/** The base64 content of a `data:` URL (RFC 2397), or undefined when it is not one. */
function dataUrlBytes(url: string): string | undefined {
  const match = /^data:([^,]*),(.*)$/is.exec(url);
  if (!match) return undefined;
  const [, meta, data] = match as unknown as [string, string, string];
  if (/;base64$/i.test(meta)) return /^[A-Za-z0-9+/=\s]*$/.test(data) ? data.replace(/\s+/g, "") : undefined;
  try {
    return Buffer.from(decodeURIComponent(data), "utf8").toString("base64");
  } catch {
    return undefined;
  }
}

/**
 * Whether an agent's own card accepts a media type: its `defaultInputModes` (media types, `type/*`, `*\/*`,
 * or the old bare `text`). An agent whose card says nothing accepts anything.
 */
export function acceptsMediaType(card: Record<string, unknown> | undefined, mediaType: string): boolean {
  const modes = card?.defaultInputModes;
  if (!Array.isArray(modes) || modes.length === 0) return true;
  const wanted = mediaType.toLowerCase().split(";")[0]!.trim();
  return modes.some((m) => {
    if (typeof m !== "string") return false;
    const mode = m.toLowerCase().trim();
    if (mode === "*/*" || mode === wanted) return true;
    if (mode.endsWith("/*")) return wanted.startsWith(mode.slice(0, -1));
    return !mode.includes("/") && wanted.startsWith(`${mode}/`);
  });
}

/**
 * The first file the agent's own card says it does not take (`defaultInputModes`), as a refusal naming the
 * request field that gave it; `mediaType` when the type to ask about is not the part's own.
 */
export function refusedFile(
  service: TaskService,
  agent: string | undefined,
  files: readonly { part: FilePart; field: string; mediaType?: string }[],
  scope: Scope,
): { message: string; field: string } | undefined {
  if (files.length === 0) return undefined;
  const id = agent ?? service.defaultAgentId(scope.caller);
  const found = id === undefined ? undefined : service.findAgent(id, scope.caller);
  if (!found) return undefined; // the turn itself refuses an unknown agent, in its own words
  for (const { part, field, mediaType } of files) {
    const type = mediaType ?? part.file.mimeType ?? "application/octet-stream";
    if (!acceptsMediaType(found.info.card, type)) {
      const modes = ((found.info.card?.defaultInputModes as unknown[] | undefined) ?? []).join(", ");
      return { message: `agent "${found.info.id}" does not accept ${type} files (its card's defaultInputModes: ${modes})`, field };
    }
  }
  return undefined;
}
