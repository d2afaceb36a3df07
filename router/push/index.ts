/** Push notifications: webhook configs per task and delivery of every task update to them. */
export { PushNotifier, type PushNotifierOptions, type PushStats } from "./notifier.js";
export { pushBody, pushHeaders, TOKEN_HEADER, type PushBody } from "./payload.js";
export { checkPushUrl, connectLookup, isPublicAddress, PUSH_URL_FIELD, type PushUrlPolicy } from "./url-policy.js";
