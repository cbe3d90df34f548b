import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Role } from '../../src/auth/types';
import { type Config, loadConfig } from '../../src/config';
import { createEmbeddedEngine } from '../../src/engines/embedded';
import type { GraphEngine } from '../../src/engines/port';
import { buildApp } from '../../src/http/app';
import { createApiKey } from '../../src/platform/api-keys';
import { setMembership } from '../../src/platform/members';
import { createUser } from '../../src/platform/users';
import type { Clock } from '../../src/shared/clock';

/** The owner key every test platform starts with. */
export const TEST_OWNER_KEY = 'test-owner-key-0123456789abcdef';

export interface TestPlatform {
  app: FastifyInstance;
  engine: GraphEngine;
  dataDir: string;
  ownerKey: string;
  /** Creates a platform user (optionally a platform admin) with its own API key on `siteId`. */
  addUser(input: {
    name: string;
    siteId?: string;
    role?: Role;
    platformRole?: 'admin' | null;
  }): Promise<TestUser>;
  close(): Promise<void>;
}

export interface TestUser {
  userId: string;
  /** An API key acting for the user on `siteId` with `role` (or with the platform role). */
  key: string;
  keyId: string;
}

/**
 * A real app on a real embedded engine in a fresh temp directory, bootstrapped with
 * {@link TEST_OWNER_KEY}. For tests only.
 */
/** The environment of every test app on `dataDir`: quiet, no scheduler, no limits tests trip by design. */
export function testAppEnv(dataDir: string): Record<string, string> {
  return {
    CMS_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CMS_SCHEDULER: '0',
    // Webhook deliveries are queued, not sent, unless a test sends them (tick) or turns this on.
    CMS_WEBHOOKS: '0',
    RATE_LIMIT_MAX: '100000',
    // Tests send many bad credentials on purpose; those about the failed-authentication limit set it.
    AUTH_FAILURE_MAX: '100000',
    // Parallel test files on a small machine stall the event loop; tests that want shedding set it.
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
  };
}

/**
 * A second server of a test platform (docs/scaling.md § Several API servers): its own app and
 * `engine` on the platform's `dataDir` (or the same Neo4j), the test environment plus `env`.
 */
export async function startPeerApp({
  dataDir,
  engine,
  env = {},
}: {
  dataDir: string;
  engine: GraphEngine;
  env?: Record<string, string>;
}): Promise<FastifyInstance> {
  const app = await buildApp({
    config: loadConfig({ ...testAppEnv(dataDir), ...env }),
    engine,
    logger: false,
  });
  await app.ready();
  return app;
}

export async function startTestPlatform(
  options: {
    env?: Record<string, string>;
    /** Makes the engine (default: embedded) with its data in the platform's temp dir, removed on close. */
    engine?: (dataDir: string) => GraphEngine;
    logStream?: NodeJS.WritableStream;
    /** The app's clock (default: the system clock). */
    clock?: Clock;
    /** Registers extra (test-only) routes before the app is ready. */
    beforeReady?: (app: FastifyInstance) => void | Promise<void>;
  } = {},
): Promise<TestPlatform> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trellis-platform-'));
  const config: Config = loadConfig({
    ...testAppEnv(dataDir),
    CMS_OWNER_KEY: TEST_OWNER_KEY,
    ...options.env,
  });
  const engine = options.engine?.(dataDir) ?? createEmbeddedEngine({ dataDir });
  const app = await buildApp({
    config,
    engine,
    logger: options.logStream !== undefined,
    logStream: options.logStream,
    clock: options.clock,
  });
  await options.beforeReady?.(app);
  await app.ready();
  const { platform, clock } = app.trellis;
  return {
    app,
    engine,
    dataDir,
    ownerKey: TEST_OWNER_KEY,
    async addUser({ name, siteId, role, platformRole = null }) {
      return platform.transaction(async (tx) => {
        const user = await createUser(tx, {
          name,
          email: `${name}@example.test`,
          sub: null,
          platformRole,
          persona: null,
          actor: 'test',
          clock,
        });
        if (siteId && role) await setMembership(tx, { userId: user.id, siteId, role, actor: 'test', clock });
        const { record, token } = await createApiKey(tx, {
          name: `${name} key`,
          role: role ?? platformRole ?? 'viewer',
          userId: user.id,
          siteId: siteId ?? null,
          allowedSites: siteId ? [siteId] : null,
          actor: 'test',
          clock,
        });
        return { userId: user.id, key: token, keyId: record.id };
      });
    },
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
