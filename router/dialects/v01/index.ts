/** A2A v0.1, the seeds' dialect: its wire shapes, client side, client codec, agent side, push body and card shape. */
export { v01 } from "./client.js";
export { v01Upstream } from "./agent.js";
export { v01Codec } from "./codec.js";
export { v01PushBody } from "./push.js";
export { isV01Card, V01_CARD_VERSION } from "./card.js";
export {
  artifactFromV01,
  artifactToV01,
  eventToV01,
  messageFromV01,
  messageToV01,
  partFromV01,
  partToV01,
  statusFromV01,
  statusToV01,
  taskToV01,
  type V01Artifact,
  type V01Message,
  type V01Part,
  type V01TaskStatus,
} from "./wire.js";
