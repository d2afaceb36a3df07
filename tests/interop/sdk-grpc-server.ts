import { type Metadata, Server, ServerCredentials, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { DefaultRequestHandler } from "@a2a-js/sdk/server";
import { A2AService, grpcService, UserBuilder } from "@a2a-js/sdk/server/grpc";
import { a2aService, decodeJson } from "../../router/dialects/v10/grpc/proto.js";
import type { RecordedCall } from "./sdk-agent.js";

type Handler = (call: { request: any; metadata: Metadata }, ...rest: unknown[]) => unknown;

/**
 * @a2a-js/sdk's gRPC server (`grpcService` on grpc-js, as the SDK's README mounts it) on a loopback port,
 * over a request handler that may be swapped (an agent that restarts). Every call is told to `onCall` first,
 * its request as ProtoJSON (what the same call carries over JSON-RPC, so tests assert on it alike) and as
 * the SDK's own object, which the hook may change before the SDK reads it.
 */
export class SdkGrpcServer {
  #server = new Server();
  #impl: UntypedServiceImplementation;
  target = "";

  constructor(
    handler: DefaultRequestHandler,
    private readonly onCall: (call: RecordedCall, request: any) => void,
  ) {
    this.#impl = this.#service(handler);
  }

  /** Serves another request handler from now on. */
  use(handler: DefaultRequestHandler): void {
    this.#impl = this.#service(handler);
  }

  async start(): Promise<this> {
    const recorded: UntypedServiceImplementation = {};
    for (const [key, def] of Object.entries(A2AService)) {
      const name = def.path.split("/").pop()!;
      const input = a2aService.methods.find((m) => m.name === name)!.input;
      recorded[key] = ((call, ...rest) => {
        const params = decodeJson(input, def.requestSerialize(call.request as never)) as Record<string, any>;
        const metadata = Object.fromEntries(Object.entries(call.metadata.getMap()).map(([k, v]) => [k, v.toString()]));
        this.onCall({ method: name, version: metadata["a2a-version"], params, metadata }, call.request);
        return (this.#impl[key] as Handler)(call, ...rest);
      }) as Handler;
    }
    this.#server.addService(A2AService, recorded);
    const port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    this.target = `127.0.0.1:${port}`;
    return this;
  }

  stop(): void {
    this.#server.forceShutdown();
  }

  #service(handler: DefaultRequestHandler): UntypedServiceImplementation {
    return grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }) as unknown as UntypedServiceImplementation;
  }
}
