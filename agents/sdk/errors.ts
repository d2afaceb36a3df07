/** The hub refused the agent (bad token, name owned by another token, already connected): fatal. */
export class AgentRefusedError extends Error {
  constructor(
    message: string,
    /** The hub's JSON-RPC error code, or the HTTP status of a refused upgrade. */
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "AgentRefusedError";
  }
}

/** Thrown by connectAgent / skill() for options that cannot work; the message names the field. */
export class AgentOptionsError extends TypeError {
  constructor(field: string, detail: string) {
    super(`connectAgent: ${field} ${detail}`);
    this.name = "AgentOptionsError";
  }
}
