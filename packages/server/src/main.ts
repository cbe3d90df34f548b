#!/usr/bin/env node
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { ConfigError, loadConfig } from './config';
import { buildApp } from './http/app';
import { runOperatorCommand } from './operator-commands';
import { firstStartNotice } from './platform/bootstrap-owner';

/**
 * Starts the server: validated configuration, listen, graceful shutdown on SIGTERM/SIGINT
 * (drain: new requests get 503 `shutting_down` with `Connection: close`, requests in flight
 * finish; then close: builds in flight finish, the engine closes; then exit), bounded by
 * `SHUTDOWN_TIMEOUT_MS`.
 */
async function main(): Promise<void> {
  const command = await runOperatorCommand(process.argv.slice(2), process.env, () => text(process.stdin));
  if (command) {
    process.stdout.write(command.stdout);
    process.stderr.write(command.stderr);
    process.exit(command.code);
  }
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
    const timeoutMs = config.SHUTDOWN_TIMEOUT_MS;
    app.log.info({ signal, timeoutMs }, 'shutting down: finishing in-flight requests');
    const deadline = Date.now() + timeoutMs;
    setTimeout(() => {
      app.log.error({ timeoutMs }, 'shutdown timed out: exiting with work still running');
      process.exit(1);
    }, timeoutMs).unref();
    app
      .drain({ deadline })
      .then((left) => {
        if (left.inFlight > 0) app.log.warn(left, 'requests still in flight at the shutdown deadline');
        return app.close();
      })
      .then(
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
  // Printed once, straight to stdout and never through the logger; only its hash is stored.
  const notice = firstStartNotice(app.ownerBootstrap, {
    address,
    dataDir: config.CMS_ENGINE === 'embedded' ? resolve(config.CMS_DATA_DIR) : null,
  });
  if (notice) process.stdout.write(notice);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `trellis: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
