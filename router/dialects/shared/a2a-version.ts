import { TaskError } from "../../core/errors.js";

/**
 * The `A2A-Version` service parameter (v1.0 spec 3.6): sent as an HTTP header (or, for GET requests, a
 * query parameter of the same name). Only Major.Minor counts; an empty or absent value means 0.3.
 *
 * The router speaks 0.1, 0.3 and 1.0 on every endpoint, and the method name already says which dialect a
 * request is in (v1.0's are PascalCase, v0.3's slash-separated, v0.1's `tasks/send*`). So the header
 * decides nothing about translation; it only refuses versions the router does not speak, with
 * VersionNotSupported (reason version-not-supported). A 1.0 client that forgets the header still gets v1.0 answers.
 */
export const A2A_VERSION_HEADER = "A2A-Version";

/** Major.Minor versions the router accepts in A2A-Version. */
export const SUPPORTED_A2A_VERSIONS: readonly string[] = ["0.1", "0.3", "1.0"];

/** The dialect each A2A protocol version (Major.Minor) is spoken in. 0.2 already had message/send and `kind`. */
const VERSION_DIALECT: Readonly<Record<string, import("../../core/model.js").DialectName>> = {
  "0.1": "v0.1",
  "0.2": "v0.3",
  "0.3": "v0.3",
  "1.0": "v1.0",
};

/**
 * A protocol version as a card, a config or a flag writes it ("1.0", "1.0.1", "v0.3"): its Major.Minor,
 * or undefined when it is not a version. The one parser of versions: the header, card interfaces, config
 * `protocol` and the CLI's --a2a-version all read theirs with it.
 */
export function majorMinor(raw: string): string | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)*$/i.exec(raw.trim());
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

/** The dialect a protocol version is spoken in, when the router speaks it. */
export function dialectOfVersion(raw: string): import("../../core/model.js").DialectName | undefined {
  const version = majorMinor(raw);
  return version === undefined ? undefined : VERSION_DIALECT[version];
}

/** The version a request asked for, as Major.Minor ("0.3" when absent or empty). */
export function requestedA2AVersion(header: string | string[] | undefined): string {
  const raw = (Array.isArray(header) ? header[0] : header)?.trim() ?? "";
  if (raw === "") return "0.3";
  // The header has no "v": "v1.0" is not a version there (and is refused as written).
  return (/^v/i.test(raw) ? undefined : majorMinor(raw)) ?? raw;
}

/** Throws VersionNotSupported unless the header names a version the router speaks. */
export function assertA2AVersion(header: string | string[] | undefined): string {
  const version = requestedA2AVersion(header);
  if (!SUPPORTED_A2A_VERSIONS.includes(version)) throw TaskError.versionNotSupported(version);
  return version;
}

/**
 * The A2A-Version of an HTTP request: the header, else (v1.0 3.6, for GET requests above all) the query
 * parameter of the same name.
 */
export function a2aVersionOf(header: string | undefined, query: Record<string, unknown>): string | undefined {
  if (header !== undefined) return header;
  const q = query[A2A_VERSION_HEADER];
  return typeof q === "string" ? q : undefined;
}
