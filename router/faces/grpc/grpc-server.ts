import { readFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { loadFileDescriptorSetFromBuffer, loadSync } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation, protoPath as healthProtoPath } from "grpc-health-check";
import { DESCRIPTOR_SET_PATH, a2aService } from "../../dialects/v10/grpc/proto.js";
import { prepareStreamEncoder } from "../../dialects/v10/grpc/stream-encoder.js";
import { a2aServiceDefinition, a2aServiceImplementation, type GrpcServiceDeps } from "./service.js";
import { writeWindow } from "./write-window.js";

/** Where and within which bounds the gRPC face serves (CONTRACT 12 and 17). */
export interface GrpcFaceOptions extends GrpcServiceDeps {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The largest request message (limits.maxBodyBytes): a bigger one is RESOURCE_EXHAUSTED. */
  maxMessageBytes: number;
  /**
   * The router's connection bounds (limits.maxConnections, maxConnectionsPerAddress), as the HTTP port applies
   * them (router/http/limits.ts): `watch` counts the face's TCP connections, `refused` says one is past a bound
   * (it is then closed at once: gRPC has no 503 to answer it with).
   */
  connections: { watch(server: NetServer): void; refused(socket: Socket): boolean };
  /** Calls at once on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxStreamsPerConnection: number;
  /** HTTP/2 keepalive pings this often, so an idle stream through a proxy is not cut and a vanished peer is found. */
  keepaliveMs: number;
}

/** The gRPC face, listening. */
export interface RunningGrpcFace {
  port: number;
  /** Stops accepting calls, then ends the ones in flight. */
  close(): Promise<void>;
}

/** How long calls in flight get to end once the face closes, before they are cut. */
const DRAIN_MS = 1000;

/**
 * Serves `lf.a2a.v1.A2AService` (the A2A v1.0 gRPC binding), `grpc.health.v1.Health` and server reflection on
 * its own port. Connections are accepted by a plain TCP server that counts them (the HTTP port's bounds, its
 * own count) and hands those within bounds to grpc-js, whose own server has no connection bound.
 */
export async function startGrpcFace(options: GrpcFaceOptions): Promise<RunningGrpcFace> {
  prepareStreamEncoder();
  const server = new Server({
    "grpc.max_receive_message_length": options.maxMessageBytes,
    "grpc.max_concurrent_streams": options.maxStreamsPerConnection,
    "grpc.keepalive_time_ms": options.keepaliveMs,
    // A stream's messages reach HTTP/2 without each waiting for the last one's write (write-window.ts).
    interceptors: [writeWindow()],
  });
  server.addService(a2aServiceDefinition(), a2aServiceImplementation(options));
  const health = new HealthImplementation({ "": "SERVING", [a2aService.typeName]: "SERVING" });
  health.addToServer(server);
  // Reflection describes both services (grpcurl then needs no proto file): the A2A proto's descriptor set and health's proto.
  new ReflectionService({ ...loadFileDescriptorSetFromBuffer(readFileSync(DESCRIPTOR_SET_PATH)), ...loadSync(healthProtoPath) }).addToServer(server);

  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const tcp = createServer();
  options.connections.watch(tcp);
  // After the bounds' own listener: it has marked (or destroyed) the connections past them.
  tcp.on("connection", (socket: Socket) => {
    if (socket.destroyed) return;
    if (options.connections.refused(socket)) return void socket.destroy();
    injector.injectConnection(socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(options.port, options.host, () => resolve());
    });
  } catch (err) {
    injector.destroy();
    server.forceShutdown();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    port: (tcp.address() as AddressInfo).port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        health.setStatus("", "NOT_SERVING");
        tcp.close();
        injector.drain(DRAIN_MS);
        const timer = setTimeout(() => server.forceShutdown(), DRAIN_MS);
        server.tryShutdown(() => {
          clearTimeout(timer);
          injector.destroy();
          resolve();
        });
      });
      return closed;
    },
  };
}
