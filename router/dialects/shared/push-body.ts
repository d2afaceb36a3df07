/** One webhook POST for one task update (each dialect folder's push.ts writes its own). */
export interface PushBody {
  body: string;
  contentType: string;
}

/** v1.0 push bodies (spec 4.3.3). */
export const A2A_JSON = "application/a2a+json";
/** v0.1 and v0.3 push bodies. */
export const PLAIN_JSON = "application/json";
