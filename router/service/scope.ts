/**
 * Who is asking, as every face tells the task service: the caller behind the API key, and the agent the
 * endpoint is fixed to. The HTTP edge builds it; the service decides what the caller may see with it.
 */

/** The authenticated client: a stable principal per API key and the agents the key may use. */
export interface Caller {
  /** Stable id of the API key (its configured name, else a short hash); absent when no keys are configured. */
  principal?: string;
  /** Agent ids or names this key is limited to; absent: every agent. */
  agents?: readonly string[];
}

/** A call's scope: the caller, and the agent the endpoint names (`/agents/{agentId}/...`). */
export interface Scope {
  caller?: Caller;
  agentId?: string;
}
