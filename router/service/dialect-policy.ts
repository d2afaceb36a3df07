import type { DialectName } from "../core/model.js";

/**
 * Where a dialect's clients write the ids a request carries (`pushId`: in a send, `pushSetId`: in a push
 * config set on its own), so that an error names the field the client wrote.
 */
export interface IdFields {
  taskId: string;
  contextId: string;
  messageId: string;
  pushId: string;
  pushSetId: string;
}

/**
 * What the task service must know of the dialect a request is written in, told by its caller (the request
 * handler passes the dialect itself, which says all of this): the service knows no dialect.
 */
export interface DialectPolicy {
  /** The dialect the task is created in (what tasks/get answers in later). */
  readonly name: DialectName;
  /** Whether a client-supplied task id may create a task (absent: it may, as in v0.1). */
  readonly clientNamesTasks?: boolean;
  /** Whether a message id names a message once per context (v0.3/v1.0): a message sent again is not run again. */
  readonly dedupesMessageIds?: boolean;
  readonly idFields: IdFields;
}
