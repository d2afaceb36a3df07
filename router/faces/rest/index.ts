/** The A2A v1.0 HTTP+JSON (REST) binding for every agent, over the task service. */
export { restHandler, type RestRouteDeps } from "./rest-route.js";
export { FACE_ERRORS, REASON_ERRORS as REST_REASON_ERRORS, restError, type RestError } from "./errors.js";
