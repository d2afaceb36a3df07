import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { TaskError } from "../core/errors.js";

/**
 * Which webhook URLs the router may call (SSRF). Outside dev mode a webhook may only reach public unicast
 * addresses; the check runs when a config is set (after DNS resolution) and again on every connection a
 * delivery opens (the addresses are resolved once per connection and the socket connects to exactly those,
 * so a name that re-resolves to 127.0.0.1 later, DNS rebinding, is refused too).
 */
export interface PushUrlPolicy {
  /** Allow loopback, private, link-local, ... addresses (dev mode, or push.allowPrivateUrls). */
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (tests inject one); default: the system resolver, all families. */
  resolve?: (host: string) => Promise<string[]>;
}

/** The field named in refusals (v0.1/v0.3 `pushNotificationConfig.url`; v1.0 maps it to its own config). */
export const PUSH_URL_FIELD = "pushNotificationConfig.url";

const systemResolve = async (host: string): Promise<string[]> => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * True for a public unicast address. Everything ipaddr.js puts in a special range is refused: loopback,
 * private (RFC 1918), link-local (cloud metadata at 169.254.169.254), unique-local, carrier-grade NAT,
 * unspecified, broadcast, multicast, reserved, benchmarking, and the v6 forms that embed a v4 address (NAT64,
 * 6to4, Teredo); an IPv4-mapped v6 address is judged by its v4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === "unicast";
}

/** The URL's host as an address when it is an IP literal (`[::1]` unbracketed), else undefined. */
function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(host) ? host : undefined;
}

/** Parses a webhook URL: http(s) only, else invalid params naming the field. */
export function parsePushUrl(url: string, field = PUSH_URL_FIELD): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw TaskError.invalidParams(`${field} is not a URL: "${url}"`, field);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw TaskError.invalidParams(`${field} must be http(s): "${url}"`, field);
  }
  return parsed;
}

/**
 * Checks a webhook URL when a config is set: an http(s) URL and, unless the policy allows private
 * addresses, a host whose every address is public. Throws TaskError invalid-params naming `field`.
 */
export async function checkPushUrl(url: string, policy: PushUrlPolicy, field = PUSH_URL_FIELD): Promise<void> {
  const parsed = parsePushUrl(url, field);
  if (policy.allowPrivate) return;
  const literal = literalAddress(parsed);
  let addresses: string[];
  if (literal !== undefined) addresses = [literal];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(parsed.hostname);
    } catch {
      throw TaskError.invalidParams(`${field} host "${parsed.hostname}" does not resolve`, field);
    }
  }
  if (addresses.length === 0) throw TaskError.invalidParams(`${field} host "${parsed.hostname}" does not resolve`, field);
  if (!addresses.every(isPublicAddress)) {
    throw TaskError.invalidParams(
      `${field} must not name a loopback, private or link-local address (set push.allowPrivateUrls to allow): "${parsed.hostname}"`,
      field,
    );
  }
}

/** A refusal raised while connecting: the delivery loop logs it as the reason and does not retry into it. */
export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
  readonly code = "EPRIVATEADDRESS";
}

/**
 * The check at delivery time, before a connection: an IP literal is judged here (sockets skip the lookup
 * for literals); a name is judged by `connectLookup` on the connection itself.
 */
export function assertDeliverable(url: URL, policy: PushUrlPolicy): void {
  if (policy.allowPrivate) return;
  const literal = literalAddress(url);
  if (literal !== undefined && !isPublicAddress(literal)) throw new PrivateAddressError(`webhook address ${literal} is not public`);
}

/**
 * A `lookup` for net/http(s) connections that resolves the name once and hands the socket only public
 * addresses (all of them must be public, or none is used): the address checked is the address connected to.
 */
export function connectLookup(policy: PushUrlPolicy): LookupFunction | undefined {
  if (policy.allowPrivate) return undefined;
  const resolve = policy.resolve ?? systemResolve;
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
          return callback(new PrivateAddressError(`webhook host ${hostname} resolves to a non-public address`));
        }
        const entries = addresses.map((address) => ({ address, family: ipaddr.parse(address).kind() === "ipv6" ? 6 : 4 }));
        if (options?.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err: unknown) => callback(err),
    );
  }) as unknown as LookupFunction;
}
