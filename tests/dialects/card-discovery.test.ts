import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  cardUrls,
  dialectOfCard,
  discoverAgent,
  interfaceOfCard,
  jsonRpcEndpoints,
  parseProtocol,
  parseProtocolChoice,
} from "../../router/upstream/card-discovery.js";

/** A loopback server answering GET <path> with the card registered for it (404 otherwise). */
let server: Server;
let base: string;
const cards = new Map<string, unknown>();
const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", headers: req.headers });
    const card = cards.get(req.url ?? "");
    if (card === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(typeof card === "string" ? card : JSON.stringify(card));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const v10Card = (url: string) => ({
  name: "v1",
  description: "d",
  version: "1",
  supportedInterfaces: [
    { url: `${url}/a2a/v03`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    { url: `${url}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: `${url}/a2a/v1`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  capabilities: { streaming: true },
  skills: [],
});

describe("card locations and dialect detection", () => {
  test("the card is looked for under the URL, then at its origin; a card URL is tried first", () => {
    expect(cardUrls("http://h:1/agents/x/")).toEqual([
      "http://h:1/agents/x/.well-known/agent-card.json",
      "http://h:1/agents/x/.well-known/agent.json",
      "http://h:1/.well-known/agent-card.json",
      "http://h:1/.well-known/agent.json",
    ]);
    expect(cardUrls("http://h:1")).toEqual(["http://h:1/.well-known/agent-card.json", "http://h:1/.well-known/agent.json"]);
    expect(cardUrls("http://h:1/cards/agent.json")[0]).toBe("http://h:1/cards/agent.json");
  });

  test("config protocol strings", () => {
    expect(parseProtocol("1.0")).toBe("v1.0");
    expect(parseProtocol("v1.0.1")).toBe("v1.0");
    expect(parseProtocol("0.3.0")).toBe("v0.3");
    expect(parseProtocol("0.2.5")).toBe("v0.3");
    expect(parseProtocol("0.1")).toBe("v0.1");
    expect(() => parseProtocol("2.0")).toThrow(/unknown A2A protocol "2.0"/);
  });

  test("config protocol strings may name a binding: 1.0+rest, 1.0+grpc, 1.0+jsonrpc; REST and gRPC are v1.0's only", () => {
    expect(parseProtocolChoice("1.0")).toEqual({ dialect: "v1.0" });
    expect(parseProtocolChoice("1.0+rest")).toEqual({ dialect: "v1.0", binding: "HTTP+JSON" });
    expect(parseProtocolChoice("v1.0.1+REST")).toEqual({ dialect: "v1.0", binding: "HTTP+JSON" });
    expect(parseProtocolChoice("1.0+jsonrpc")).toEqual({ dialect: "v1.0", binding: "JSONRPC" });
    expect(parseProtocol("1.0+rest")).toBe("v1.0");
    expect(parseProtocolChoice("1.0+grpc")).toEqual({ dialect: "v1.0", binding: "GRPC" });
    expect(parseProtocolChoice("v1.0.1+GRPC")).toEqual({ dialect: "v1.0", binding: "GRPC" });
    expect(() => parseProtocolChoice("0.3+rest")).toThrow(/HTTP\+JSON and gRPC bindings are spoken for 1.0 only/);
    expect(() => parseProtocolChoice("0.3+grpc")).toThrow(/unknown A2A protocol "0.3\+grpc"/);
    expect(() => parseProtocolChoice("1.0+soap")).toThrow(/unknown A2A protocol "1.0\+soap"/);
  });

  test("gRPC is the last choice: taken when a card offers nothing else, its host:port and tenant kept as written", () => {
    const grpc = { url: "agent.example:50051", protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "team-a" };
    expect(interfaceOfCard({ supportedInterfaces: [grpc] }, "http://h/.well-known/agent-card.json")).toEqual({
      dialect: "v1.0",
      binding: "GRPC",
      url: "agent.example:50051",
      tenant: "team-a",
    });
    // Any HTTP binding the router speaks comes first, even an older dialect's.
    const v03AndGrpc = { supportedInterfaces: [grpc, { url: "http://h/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" }] };
    expect(interfaceOfCard(v03AndGrpc)).toMatchObject({ dialect: "v0.3", binding: "JSONRPC" });
    // Config: a bare 1.0 takes gRPC when that is all the card offers for 1.0; 1.0+grpc forces it.
    expect(interfaceOfCard(v03AndGrpc, undefined, { dialect: "v1.0" })).toMatchObject({ binding: "GRPC", url: "agent.example:50051" });
    expect(interfaceOfCard(v10Card("http://h"), undefined, { dialect: "v1.0", binding: "GRPC" })).toEqual({ dialect: "v1.0", binding: "GRPC" });
    // v0.3's gRPC (another proto) is not spoken.
    expect(interfaceOfCard({ url: "h:1", preferredTransport: "GRPC", protocolVersion: "0.3.0" })).toEqual({ dialect: "v0.1", binding: "JSONRPC" });
  });

  test("the interface spoken: JSON-RPC first within a dialect, v1.0 HTTP+JSON when it is all a card offers", () => {
    const restOnly = {
      supportedInterfaces: [
        { url: "http://h/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: "http://h/g", protocolBinding: "GRPC", protocolVersion: "1.0" },
      ],
    };
    expect(interfaceOfCard(restOnly)).toEqual({ dialect: "v1.0", binding: "HTTP+JSON", url: "http://h/rest" });
    expect(interfaceOfCard(v10Card("http://h"))).toEqual({ dialect: "v1.0", binding: "JSONRPC", url: "http://h/a2a/v1" });
    // v1.0 over REST beats v0.3 over JSON-RPC: the newer dialect first.
    const v03AndRest = { supportedInterfaces: [{ url: "http://h/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" }, restOnly.supportedInterfaces[0]] };
    expect(interfaceOfCard(v03AndRest)).toMatchObject({ dialect: "v1.0", binding: "HTTP+JSON" });
    // Config: a forced binding, or a bare dialect that takes the binding the card offers for it.
    expect(interfaceOfCard(v10Card("http://h"), undefined, { dialect: "v1.0", binding: "HTTP+JSON" })).toEqual({
      dialect: "v1.0",
      binding: "HTTP+JSON",
      url: "http://h/a2a/rest",
    });
    expect(interfaceOfCard(restOnly, undefined, { dialect: "v1.0" })).toMatchObject({ binding: "HTTP+JSON", url: "http://h/rest" });
    expect(interfaceOfCard({}, undefined, { dialect: "v1.0", binding: "HTTP+JSON" })).toEqual({ dialect: "v1.0", binding: "HTTP+JSON" });
    // v0.3 members: an HTTP+JSON interface of a 1.0 card counts; a 0.3 one (v0.3's REST, not spoken) does not.
    expect(interfaceOfCard({ url: "http://h/rest", preferredTransport: "HTTP+JSON", protocolVersion: "1.0", additionalInterfaces: [] })).toMatchObject({
      dialect: "v1.0",
      binding: "HTTP+JSON",
      url: "http://h/rest",
    });
    const v03Rest = {
      url: "http://h/rest",
      preferredTransport: "HTTP+JSON",
      protocolVersion: "0.3.0",
      additionalInterfaces: [{ url: "http://h/rpc", transport: "JSONRPC" }],
    };
    expect(interfaceOfCard(v03Rest)).toEqual({ dialect: "v0.3", binding: "JSONRPC", url: "http://h/rpc" });
  });

  test("a card's dialect is the best JSON-RPC interface it offers", () => {
    expect(dialectOfCard(v10Card("http://h"))).toBe("v1.0");
    expect(dialectOfCard({ url: "http://h/rpc", protocolVersion: "0.3.0", preferredTransport: "JSONRPC" })).toBe("v0.3");
    expect(dialectOfCard({ url: "http://h/rpc", protocolVersion: "0.2.6" })).toBe("v0.3");
    expect(dialectOfCard({ url: "http://h/rpc", additionalInterfaces: [] })).toBe("v0.3");
    expect(dialectOfCard({ url: "http://h/rpc", capabilities: { streaming: true } })).toBe("v0.1");
    // A v0.3 card served by a v1.0 SDK with compat on: its url speaks 0.3 even when it also lists 1.0.
    const both = { ...v10Card("http://h"), supportedInterfaces: [{ url: "http://h/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" }] };
    expect(dialectOfCard(both)).toBe("v0.3");
  });

  test("JSON-RPC endpoints by dialect, relative URLs resolved against the card", () => {
    const eps = jsonRpcEndpoints(v10Card(""), "http://h:2/.well-known/agent-card.json");
    expect(eps.get("v1.0")).toBe("http://h:2/a2a/v1");
    expect(eps.get("v0.3")).toBe("http://h:2/a2a/v03");
    const rest = jsonRpcEndpoints({
      url: "http://h/rest",
      preferredTransport: "HTTP+JSON",
      protocolVersion: "0.3.0",
      additionalInterfaces: [{ url: "http://h/rpc", transport: "JSONRPC" }],
    });
    expect(rest.get("v0.3")).toBe("http://h/rpc");
  });
});

describe("discoverAgent on a real server", () => {
  test("a v1.0 card at the origin: its v1.0 JSON-RPC endpoint, streaming, asked for with A2A-Version 1.0", async () => {
    cards.clear();
    cards.set("/.well-known/agent-card.json", v10Card(base));
    const found = await discoverAgent(`${base}/some/path`);
    expect(found).toMatchObject({ dialect: "v1.0", streaming: true, endpoint: `${base}/a2a/v1`, cardUrl: `${base}/.well-known/agent-card.json` });
    expect(seen.at(-1)?.headers["a2a-version"]).toBe("1.0");
  });

  test("config protocol picks the dialect and that dialect's endpoint", async () => {
    const found = await discoverAgent(`${base}/some/path`, {}, "0.3");
    expect(found).toMatchObject({ dialect: "v0.3", binding: "JSONRPC", endpoint: `${base}/a2a/v03` });
  });

  test("config protocol 1.0+rest picks the card's v1.0 HTTP+JSON interface", async () => {
    const found = await discoverAgent(`${base}/some/path`, {}, "1.0+rest");
    expect(found).toMatchObject({ dialect: "v1.0", binding: "HTTP+JSON", endpoint: `${base}/a2a/rest` });
  });

  test("a card offering only GRPC: its host:port (a wildcard bind at the configured host) and tenant", async () => {
    cards.clear();
    cards.set("/.well-known/agent-card.json", {
      supportedInterfaces: [{ url: "0.0.0.0:50051", protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "t1" }],
      capabilities: { streaming: true },
    });
    const found = await discoverAgent(base);
    expect(found).toMatchObject({ dialect: "v1.0", binding: "GRPC", endpoint: "127.0.0.1:50051", tenant: "t1", streaming: true });
  });

  test("agent.json under the URL is found when agent-card.json is not; capabilities.streaming absent = false", async () => {
    cards.clear();
    cards.set("/x/.well-known/agent.json", { name: "old", url: `${base}/x/rpc`, capabilities: {} });
    const found = await discoverAgent(`${base}/x`, { authorization: "Bearer t" });
    expect(found).toMatchObject({ dialect: "v0.1", streaming: false, endpoint: `${base}/x/rpc` });
    expect(seen.at(-1)?.headers.authorization).toBe("Bearer t");
  });

  test("a card advertising a wildcard bind address is reached at the configured host", async () => {
    cards.clear();
    const port = new URL(base).port;
    cards.set("/.well-known/agent-card.json", { url: `http://0.0.0.0:${port}/rpc`, protocolVersion: "0.3.0", capabilities: { streaming: true } });
    const found = await discoverAgent(base);
    expect(found.endpoint).toBe(`${base}/rpc`);
  });

  test("no card (or not JSON) anywhere: a v0.1 streaming agent at the configured URL, or the configured protocol", async () => {
    cards.clear();
    cards.set("/.well-known/agent-card.json", "not json");
    expect(await discoverAgent(`${base}/y`)).toEqual({ dialect: "v0.1", binding: "JSONRPC", streaming: true, endpoint: `${base}/y`, reached: true });
    expect(await discoverAgent(`${base}/y`, {}, "1.0+rest")).toMatchObject({ dialect: "v1.0", binding: "HTTP+JSON", endpoint: `${base}/y` });
    expect((await discoverAgent(`${base}/y`, {}, "1.0")).dialect).toBe("v1.0");
  });

  test("an unreachable agent is not an error at discovery time, and is said to be unreached", async () => {
    const found = await discoverAgent("http://127.0.0.1:1/");
    expect(found.card).toBeUndefined();
    expect(found.reached).toBe(false);
  });
});
