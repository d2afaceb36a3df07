import type { DialectName } from "../core/model.js";
import { type ClientCodec, clientCodec, isRecord, isV10Card } from "../dialects/index.js";
import { cardUrls, jsonRpcEndpoints } from "../upstream/card-discovery.js";
import { A2AClient } from "./client.js";
import { CliError } from "./exit-codes.js";
import { type CommonOptions, parseA2AVersion, parseRouterUrl, requireNonEmpty } from "./options.js";

/** Where the CLI's requests go and in which dialect, as the target's card (or --a2a-version) says. */
export interface Target {
  client: A2AClient;
  /** The target's dialect over JSON-RPC: builds each call and reads each answer. */
  codec: ClientCodec;
  /** The card read at the target, if any. */
  card?: Record<string, unknown>;
  cardUrl?: string;
  /** Whether the target is an a2a-router's own endpoint (its root or /rpc). */
  isRouter: boolean;
}

/** Asked for with the card: a server that speaks both answers with its v1.0 card, which lists every interface. */
const CARD_HEADERS = { "A2A-Version": "1.0" } as const;

/** Reads the target's card (the first location that answers a JSON object), or undefined. */
export async function readCard(client: A2AClient, url: URL): Promise<{ card: Record<string, unknown>; cardUrl: string } | undefined> {
  // Where the router looks for its upstream agents' cards: the URL's own well-known paths, then its origin's.
  for (const cardUrl of cardUrls(url.href)) {
    const answer = await client.getJson(new URL(cardUrl), CARD_HEADERS);
    if (answer && answer.status < 300 && isRecord(answer.body)) return { card: answer.body, cardUrl };
    if (answer?.status === 401) client.checkStatus(401, answer.body);
  }
  return undefined;
}

/**
 * Opens the target of a command: the dialect is --a2a-version, else the best JSON-RPC interface the card
 * offers (v1.0, then v0.3, then v0.1), else v0.1; an a2a-router's own card (its root URL) or its /rpc
 * means `routerDialect` at the URL given (v0.1, the router's historic dialect, unless the operation exists
 * only in a later one, like ListTasks), unless --a2a-version says otherwise. Requests go to the card's
 * endpoint for the chosen dialect, else to --url.
 */
export async function openTarget(options: CommonOptions, routerDialect: DialectName = "v0.1"): Promise<Target> {
  const url = parseRouterUrl(options.url);
  const forced = parseA2AVersion(options.a2aVersion);
  const client = new A2AClient(url, requireNonEmpty(options.apiKey, "--api-key"));
  const found = await readCard(client, url);
  const card = found?.card;
  const isRouter = card !== undefined ? isRouterCard(card) : /\/rpc\/?$/.test(url.pathname);
  let dialect: DialectName = forced ?? (isRouter ? routerDialect : "v0.1");
  let endpoint = url;
  if (card && !isRouter) {
    // The router reads its upstream agents' cards the same way: JSON-RPC interfaces, newest dialect first.
    const endpoints = jsonRpcEndpoints(card, found!.cardUrl);
    dialect = forced ?? [...endpoints.keys()][0] ?? (isV10Card(card) ? "v1.0" : "v0.1");
    const named = endpoints.get(dialect);
    if (named) endpoint = reachableFrom(new URL(named), url);
  }
  const codec = clientCodec(dialect);
  client.use(endpoint, isRouter || !card ? "the router" : "the agent");
  return { client, codec, ...(found && { card: found.card, cardUrl: found.cardUrl }), isRouter };
}

/**
 * The a2a-router's own card names its /rpc endpoint and itself as provider (router/cards): in `url` for every
 * generation, in `supportedInterfaces` alone when asked for in v1.0 (as readCard asks).
 */
function isRouterCard(card: Record<string, unknown>): boolean {
  const provider = isRecord(card.provider) ? card.provider : {};
  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces.filter(isRecord) : [];
  const urls = [card.url, ...interfaces.map((i) => i.url)];
  return provider.organization === "a2a-router" && urls.some((u) => typeof u === "string" && /\/rpc$/.test(u));
}

/** Cards often name the address the agent bound to (0.0.0.0, ::): such an endpoint is reached at --url's host. */
function reachableFrom(endpoint: URL, given: URL): URL {
  if (endpoint.hostname !== "0.0.0.0" && endpoint.hostname !== "[::]") return endpoint;
  const out = new URL(endpoint);
  out.hostname = given.hostname;
  return out;
}

/** Refuses an operation the target's dialect does not have (e.g. ListTasks before v1.0). */
export function requireOperation<T>(op: T | undefined, codec: ClientCodec, what: string): T {
  if (op === undefined) {
    throw CliError.usage(`${what} is not part of A2A ${codec.dialect}; the target speaks ${codec.dialect} (force another with --a2a-version)`);
  }
  return op;
}
