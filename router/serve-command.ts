import { resolveConfig, readConfigFile, configFromEnv, ConfigError } from "./config/load.js";
import type { RouterConfigInput } from "./config/config.js";
import { createLogger } from "./observability/logger.js";
import { SchemaRegistry } from "./schema/validator.js";
import { startRouter } from "./server.js";
import { startupBanner, wantsBanner } from "./startup-banner.js";
import { VERSION } from "./version.js";

/** How long a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

export interface ServeFlags {
  host?: string;
  port?: number;
  grpcPort?: number;
  store?: string;
  config?: string;
  character?: string;
  elizaPlugin?: string[];
  allowOpen?: boolean;
}

/**
 * `a2a-router serve`: resolves the config (file < env < flags), starts the router and stops it cleanly on
 * SIGINT/SIGTERM. Configuration errors print one line and exit 2.
 */
/** The oldest Node the router runs on (package.json `engines`): the SQLite store crashes on older ones. */
const MIN_NODE_MAJOR = 22;

export async function serve(flags: ServeFlags): Promise<void> {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < MIN_NODE_MAJOR) {
    process.stderr.write(
      `a2a-router needs Node ${MIN_NODE_MAJOR} or later (this is ${process.version}); run it with npm start, which uses the Node 24 the package pins, or install a newer Node.\n`,
    );
    process.exit(2);
  }
  const logger = createLogger();
  let router: Awaited<ReturnType<typeof startRouter>>;
  try {
    const schemas = new SchemaRegistry();
    const flagLayer: RouterConfigInput = {
      ...(flags.host !== undefined && { host: flags.host }),
      ...(flags.port !== undefined && { port: flags.port }),
      ...(flags.grpcPort !== undefined && { grpc: { port: flags.grpcPort } }),
      ...(flags.store !== undefined && { store: flags.store }),
      ...(flags.allowOpen && { allowOpen: true }),
      ...((flags.character || flags.elizaPlugin?.length) && {
        eliza: {
          ...(flags.character && { character: flags.character }),
          ...(flags.elizaPlugin?.length && { plugins: flags.elizaPlugin }),
        },
      }),
    };
    const config = resolveConfig(schemas, { file: readConfigFile(flags.config), env: configFromEnv(process.env), flags: flagLayer });
    router = await startRouter({ config, logger, schemas });
    if (wantsBanner()) {
      const agents = router.agents.list().map((a) => a.info.id);
      process.stdout.write(
        startupBanner({
          url: router.url,
          publicUrl: config.publicUrl,
          version: VERSION,
          agents,
          ...(router.grpcPort !== undefined && { grpcPort: router.grpcPort }),
        }),
      );
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`a2a-router: ${message.split("\n")[0]}\n`);
    process.exit(err instanceof ConfigError || (err as { exitCode?: number }).exitCode === 2 ? 2 : 1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A second signal means "now": the operator is not waiting for a store that does not answer.
      process.stderr.write(`a2a-router: ${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      process.stderr.write(`a2a-router: shutdown took longer than ${SHUTDOWN_TIMEOUT_MS} ms (is the store reachable?); exiting\n`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    await router.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
