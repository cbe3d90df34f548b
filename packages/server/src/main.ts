#!/usr/bin/env node
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';

/** Starts the server: validated configuration, listen, graceful shutdown on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`trellis: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await buildApp({ config });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const address = await app.listen({ host: config.HOST, port: config.PORT });
  app.log.info(
    { address, engine: config.CMS_ENGINE, dataDir: config.CMS_DATA_DIR },
    `Trellis listening on ${address}`,
  );
  const bootstrap = app.ownerBootstrap;
  if (bootstrap?.generated) {
    // Printed once, straight to stdout and never through the logger: it is not stored anywhere.
    process.stdout.write(
      `\nPlatform owner API key (shown once; store it now):\n\n  ${bootstrap.token}\n\nUse it as: Authorization: Bearer <key>\n\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `trellis: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
