/**
 * The Responses API's user input parts (`input_text`, `input_image`, `input_file`) as the turn's text and A2A
 * file parts. Images and files are passed to the agent, inline (`data:` URLs, base64 `file_data`) or by URL; a
 * `file_id` names a file uploaded to OpenAI's Files API, which the router does not have: refused, naming it.
 */
import type { FilePart } from "../../core/model.js";
import { dataUrlType, readFilePart } from "../shared/file-parts.js";

/** A file the turn carries, with the request field that gave it (errors and the card's refusal name it). */
export interface InputFile {
  part: FilePart;
  field: string;
  /** The type the agent's card is asked about (`image/*` for an image URL of no known type). */
  mediaType: string;
}

export type PartsRead = { ok: true; text: string; files: InputFile[] } | { ok: false; message: string; param: string };

/** Image types a URL's extension names, so an agent's card can be asked whether it takes them. */
const IMAGE_EXTENSIONS: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** Reads a user message's content parts; `field` is the content's place (`input[2].content`). */
export function readInputParts(content: readonly unknown[], field: string): PartsRead {
  let text = "";
  const files: InputFile[] = [];
  for (const [i, raw] of content.entries()) {
    const at = `${field}[${i}]`;
    const p = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    if (p.type === "input_text") {
      if (typeof p.text !== "string") return { ok: false, message: "an input_text part needs its text", param: `${at}.text` };
      text += p.text;
      continue;
    }
    const file = p.type === "input_image" ? readImage(p, at) : p.type === "input_file" ? readFile(p, at) : undefined;
    if (!file) {
      const type = typeof p.type === "string" ? p.type : "unknown";
      return { ok: false, message: `input parts are input_text, input_image or input_file (got ${type})`, param: at };
    }
    if ("message" in file) return { ok: false, message: file.message, param: file.param };
    files.push(file);
  }
  return { ok: true, text, files };
}

type FileRead = InputFile | { message: string; param: string };

function readImage(p: Record<string, unknown>, at: string): FileRead {
  if (p.file_id !== undefined) return uploaded(at);
  if (typeof p.image_url !== "string" || p.image_url === "")
    return { message: "an input_image part needs its image_url (a data: or http(s) URL)", param: `${at}.image_url` };
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(p.image_url)?.[1]?.toLowerCase();
  const mediaType = dataUrlType(p.image_url) ?? (extension && IMAGE_EXTENSIONS[extension]) ?? "image/*";
  return read({ mediaType, url: p.image_url }, `${at}.image_url`);
}

function readFile(p: Record<string, unknown>, at: string): FileRead {
  if (p.file_id !== undefined) return uploaded(at);
  if (p.filename !== undefined && typeof p.filename !== "string") return { message: "an input_file part's filename must be a string", param: `${at}.filename` };
  const filename = typeof p.filename === "string" && p.filename !== "" ? { filename: p.filename } : {};
  if (typeof p.file_url === "string" && p.file_url !== "")
    return read({ mediaType: "application/octet-stream", url: p.file_url, ...filename }, `${at}.file_url`);
  if (typeof p.file_data !== "string" || p.file_data === "")
    return { message: "an input_file part needs its file_data (a data: URL or base64) or a file_url", param: `${at}.file_data` };
  // OpenAI's clients send file_data as a data: URL; bare base64 is taken as an unnamed binary file.
  const url = p.file_data.startsWith("data:") ? p.file_data : `data:application/octet-stream;base64,${p.file_data}`;
  return read({ mediaType: dataUrlType(url) ?? "application/octet-stream", url, ...filename }, `${at}.file_data`);
}

function read(ui: { mediaType: string; url: string; filename?: string }, param: string): FileRead {
  const got = readFilePart(ui, param);
  if (!got.ok) return { message: got.message.replace("a file part's url", param.split(".").pop() ?? "the file"), param };
  // "image/*" only asks the card; the agent is told no type rather than a pattern.
  if (got.part.file.mimeType === "image/*") delete got.part.file.mimeType;
  return { part: got.part, field: param, mediaType: ui.mediaType };
}

const uploaded = (at: string): FileRead => ({
  message: "file_id names a file uploaded to OpenAI's Files API, which the router does not have: send image_url, file_url or file_data",
  param: `${at}.file_id`,
});
