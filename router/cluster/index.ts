/**
 * Many routers on one Redis store (CONTRACT 11): `RedisCluster` gives the engine its `EngineCluster` (through `ClusterPlacement`), the store
 * its commit fence, the hub its cluster-wide agent names and the registry the agents of other instances.
 */
export { RedisCluster, type ClusterOptions, type ClusterPeers } from "./cluster.js";
export { RemoteAgent } from "./agents.js";
export { ClusterPlacement } from "./placement.js";
