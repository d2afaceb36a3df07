/**
 * Services: long-lived helpers a plugin starts with the agent and stops with it (elizaOS's `Service`). A
 * plugin lists its service classes in `services`; each is started once at load with its static
 * `start(runtime)`, found again with `runtime.getService(serviceType)`, and stopped (`stop()`) at shutdown.
 */
import type { IAgentRuntime } from "./types.js";

/**
 * The base class of a plugin's services, in elizaOS's shape: subclasses set `static serviceType`, implement
 * `static start(runtime)` (which returns the running instance), `stop()` and `capabilityDescription`.
 */
export abstract class Service {
  /** The runtime that started the service. */
  protected runtime!: IAgentRuntime;

  constructor(runtime?: IAgentRuntime) {
    if (runtime) this.runtime = runtime;
  }

  /** The name `runtime.getService(type)` finds the service by. */
  static serviceType: string;

  /** One sentence on what the service offers. */
  abstract capabilityDescription: string;

  /** The service's own settings, if it keeps any. */
  config?: Record<string, unknown>;

  /** Starts the service and returns the running instance; every subclass provides its own. */
  static async start(_runtime: IAgentRuntime): Promise<Service> {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass start() was called on, whose name the message gives
    throw new Error(`${this.name}.start() is not implemented: a service class needs a static start(runtime)`);
  }

  /** Releases what the service holds; called once when the agent shuts down. */
  abstract stop(): Promise<void>;
}

/** A service class as plugins list it (`services: [MyService]`). */
export type ServiceClass = typeof Service;

/** The running services of one runtime, by type, in start order. */
export class ServiceRegistry {
  readonly #byType = new Map<string, Service[]>();
  /** Every running instance in start order (stopped last first). */
  readonly #started: Array<{ type: string; service: Service }> = [];

  /** Starts `serviceClass` for `runtime` and keeps the instance under its `serviceType`. */
  async start(serviceClass: ServiceClass, runtime: IAgentRuntime): Promise<Service> {
    const type = serviceClass.serviceType;
    if (typeof type !== "string" || type === "") throw new Error(`service ${serviceClass.name || "(anonymous)"} has no static serviceType`);
    const service = await serviceClass.start(runtime);
    if (!service || typeof service.stop !== "function") {
      throw new Error(`service ${type}: start() must resolve to the service instance (an object with stop())`);
    }
    let list = this.#byType.get(type);
    if (!list) this.#byType.set(type, (list = []));
    list.push(service);
    this.#started.push({ type, service });
    return service;
  }

  /** The first instance of `type`, or null. */
  get(type: string): Service | null {
    return this.#byType.get(type)?.[0] ?? null;
  }

  /** Every instance of `type`, in start order. */
  all(type: string): Service[] {
    return [...(this.#byType.get(type) ?? [])];
  }

  /** The types with a running instance. */
  types(): string[] {
    return [...this.#byType.keys()];
  }

  /**
   * Stops every instance, the last started first, and forgets them. A failing `stop()` is reported through
   * `onError` and does not keep the others running.
   */
  async stopAll(onError: (type: string, err: unknown) => void): Promise<void> {
    const started = this.#started.splice(0).reverse();
    this.#byType.clear();
    for (const { type, service } of started) {
      try {
        await service.stop();
      } catch (err) {
        onError(type, err);
      }
    }
  }
}
