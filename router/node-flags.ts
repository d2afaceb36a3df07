/**
 * The Node.js flags the router is launched with: by `npm start`, the Docker image, docker-compose.yml, the
 * tests' router processes and the bench (tests/compose.test.ts keeps those in step with this list). They
 * cannot be set from inside the process: V8 sizes its heap when it starts.
 *
 * `--max-semi-space-size=16`: V8 grows its young generation (two semi-spaces) while many objects survive
 * their first collections, which is what opening thousands of long-lived streams looks like, up to 64 MB
 * each on a machine with gigabytes of memory, and keeps it. Measured (docs/benchmarks.md): 10,000 idle
 * streams cost 26 KB of RSS each with V8's defaults, 17.7 KB with this cap, with no throughput change the
 * bench can tell apart from its noise; a router's garbage is short-lived requests and events, which a 16 MB
 * semi-space collects as cheaply.
 *
 * `--expose-gc`: V8 frees the text of large request bodies (its large-object space) only in a full
 * collection, which an idle router never makes; router/http/idle-collection.ts makes one once the router is
 * quiet after large bodies (six 10 MiB echoes left 70-120 MiB of dead strings in RSS otherwise).
 */
export const ROUTER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=16", "--expose-gc"];
