/**
 * The layer rules of docs/architecture.md, checked by `npm run lint` (depcruise).
 *
 * Layers point down: faces (router/rpc, router/http, router/faces/*, the CLI as a client, the hub as the
 * agents' face) -> request handler (router/handler) -> task service (router/service) -> engine (router/core)
 * <- agent connectors and stores (router/upstream, router/store, agents/echo, agents/eliza, the hub's
 * connector), which implement the engine's ports (`AgentConnector`, `TaskStore`) and so import core, never
 * the other way round. Wire modules (router/dialects, router/jsonrpc, router/sse, hub/wire) and helpers
 * (router/schema, router/observability, router/net) sit below whoever uses them.
 *
 * tests/lint/layers.test.ts runs these rules on a small tree with one violation of each kind, so a rule
 * that stops matching (a renamed folder, a broken pattern) fails the suite instead of passing silently.
 * Paths are regular expressions over paths from the repository root; `(^|/)node_modules/` also matches
 * a node_modules that is a symlink to another checkout.
 */

/** Everything above the request handler: the client faces and the HTTP adapter. */
const FACES = "^router/(rpc|http|faces)/";
/** Express, ws, Node's HTTP servers and the SSE parser: what a transport is made of. */
const TRANSPORT_PACKAGES = "(^|/)node_modules/(@types/)?(express|ws|eventsource-parser)/";
const TRANSPORT_CORE = "^(node:)?(http|https|http2)$";
/** Core modules that are data and pure helpers (the task model, reasons, the reply model), not the engine. */
const CORE_NOT_ENGINE = "^router/core/(model|errors|reply|ids|fifo|async-queue|clock|task-state)\\.ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Modules import each other in a cycle that exists at run time: one belongs below the other (or the shared part in a third module). Cycles made only of type imports are erased by tsc; across folders no-folder-cycles still counts them.",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "no-folder-cycles",
      severity: "error",
      scope: "folder",
      comment: "Two folders depend on each other (through any modules): the layers no longer point one way.",
      from: { path: "^(router|hub|agents)(/|$)" },
      to: { circular: true },
    },
    {
      name: "below-faces-no-face",
      severity: "error",
      comment:
        "Nothing below the faces imports a face or the request handler: they raise TaskErrors with reasons, and each face maps reasons to its wire (router/jsonrpc holds the neutral JSON-RPC envelopes).",
      from: {
        path: "^(router/(core|service|dialects|upstream|store|cluster|push|cards|jsonrpc|sse|net|schema|observability|agents)|agents/(eliza|echo|sdk)|hub/wire)/",
      },
      to: { path: [FACES, "^router/(handler|cli)/"] },
    },
    {
      name: "below-service-no-service",
      severity: "error",
      comment: "The engine, the wire modules, the connectors and the stores do not call the task service: it calls them.",
      from: { path: "^(router/(core|dialects|upstream|store|cluster|push|cards|jsonrpc|sse|net|schema|observability|agents)|hub|agents/(eliza|echo|sdk))/" },
      to: { path: "^router/service/" },
    },
    {
      name: "core-no-transport",
      severity: "error",
      comment: "The engine imports no transport: no express, ws, HTTP server, SSE, JSON-RPC or dialect.",
      from: { path: "^router/core/" },
      to: { path: [TRANSPORT_PACKAGES, TRANSPORT_CORE, "^router/(sse|dialects|jsonrpc|rpc|http|faces)/"] },
    },
    {
      name: "core-is-the-bottom",
      severity: "error",
      comment:
        "The engine knows agents only through AgentConnector and stores only through TaskStore (both in core): it imports nothing else of the router, the hub or the agents.",
      from: { path: "^router/core/" },
      to: { path: "^(router|hub|agents)/", pathNot: "^router/core/" },
    },
    {
      name: "service-no-transport",
      severity: "error",
      comment: "The task service is transport-free: no express, ws, HTTP, SSE, JSON-RPC, face or dialect (its caller brings the dialect's policy).",
      from: { path: "^router/service/" },
      to: { path: [TRANSPORT_PACKAGES, TRANSPORT_CORE, "^router/(sse|dialects|jsonrpc|rpc|http|faces|handler|cli)/", "^hub/"] },
    },
    {
      name: "faces-apart",
      severity: "error",
      comment:
        "Each face is one thin translation onto the request handler or the service, with its own table from reasons to its wire: no face imports another (faces/shared holds what the chat faces share).",
      from: { path: "^router/(rpc|faces/(?!shared/)[^/]+)/" },
      to: { path: "^router/(rpc|faces/(?!shared/)[^/]+)/", pathNot: "^router/$1/" },
    },
    {
      name: "handler-no-face",
      severity: "error",
      comment: "The request handler is shared by every binding: it knows no binding (JSON-RPC, REST, HTTP) and no transport.",
      from: { path: "^router/handler/" },
      to: { path: [FACES, TRANSPORT_PACKAGES, TRANSPORT_CORE, "^router/cli/"] },
    },
    {
      name: "hub-no-client-face",
      severity: "error",
      comment:
        "The hub is the agents' face, beside the client faces, not above them: it shares wire modules (router/jsonrpc, router/net, dialects) with them and gets its settings from server.ts, not from router/config.",
      from: { path: "^hub/" },
      to: { path: [FACES, "^router/(handler|service|cli|config)/"] },
    },
    {
      name: "hub-plugged-in-at-the-root",
      severity: "error",
      comment:
        "The hub is a face and a connector that router/server.ts plugs in; nothing else in the router depends on it. What both sides share (frames, codes) lives in hub/wire.",
      from: { path: "^router/[^/]+/" },
      to: { path: "^hub/", pathNot: "^hub/wire/" },
    },
    {
      name: "sdk-wire-only",
      severity: "error",
      comment:
        "The agent SDK runs in the agent's process: it shares wire modules with the router (hub frames, JSON-RPC envelopes, the task model, schemas, dialect translators), never its servers or engine.",
      from: { path: "^agents/sdk/" },
      to: {
        path: ["^router/", "^hub/", "^agents/(eliza|echo)/"],
        pathNot: ["^router/(jsonrpc|schema|dialects)/", CORE_NOT_ENGINE, "^hub/(wire/|protocol\\.ts$)"],
      },
    },
    {
      name: "cli-is-a-client",
      severity: "error",
      comment: "The CLI is a client of any A2A agent: it uses the dialects' client codecs and the upstream transport, never the router's server side.",
      from: { path: "^router/cli/" },
      to: {
        path: ["^router/(rpc|http|faces|handler|service|store|cluster|push|cards|config)/", "^hub/", "^agents/", "^router/core/"],
        pathNot: CORE_NOT_ENGINE,
      },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    // The chat page's browser code imports by URL; the lint fixtures break every rule on purpose.
    exclude: { path: ["^dist/", "^router/faces/chat-page/static/", "^tests/lint/fixtures/"] },
    // Type-only imports count: a type from a higher layer is knowledge of that layer.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".d.ts", ".json"],
    },
    // Results of unchanged files are reused (by content), so a second run takes a second or two.
    cache: { folder: ".cache/dependency-cruiser", strategy: "content" },
  },
};
