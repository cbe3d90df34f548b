import { z } from 'zod';
import { type OutboundAllowEntry, parseAllowEntry } from './shared/outbound/outbound-policy';

const Port = z.coerce.number().int().min(0).max(65535);
const Bool = z.enum(['0', '1', 'true', 'false']).transform((value) => value === '1' || value === 'true');

/**
 * A browser origin as browsers send it in `Origin` (`https://admin.example.com`, with a port
 * when not the default), or `*` for any origin. A trailing slash and upper-case host letters
 * are normalized; a path, query or credentials are refused.
 */
function toOrigin(entry: string): string | null {
  if (entry === '*') return entry;
  try {
    const url = new URL(entry);
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return bare && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : null;
  } catch {
    return null;
  }
}

/** A comma-separated list of CORS origins (see {@link toOrigin}), parsed into their normal form. */
const CorsOrigins = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const origin = toOrigin(entry);
    if (origin === null) {
      ctx.addIssue({
        code: 'custom',
        message: `has ${JSON.stringify(entry)}, which is not an origin such as https://admin.example.com (scheme, host and port only) or *`,
      });
      return z.NEVER;
    }
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
});

/**
 * `CMS_OUTBOUND_ALLOW`: comma-separated CIDR ranges, addresses and host names, each optionally
 * with a port (shared/outbound/outbound-policy.ts), that outbound requests may reach although
 * they are not public.
 */
const OutboundAllow = z.string().transform((value, ctx) => {
  const entries: OutboundAllowEntry[] = [];
  for (const raw of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const entry = parseAllowEntry(raw);
    if (entry === null) {
      ctx.addIssue({
        code: 'custom',
        message: `has ${JSON.stringify(raw)}, which is not a CIDR range (10.0.0.0/8), an address (127.0.0.1, [::1]:8080) or a host name (idp.internal:8443)`,
      });
      return z.NEVER;
    }
    entries.push(entry);
  }
  return entries;
});

/**
 * The server's configuration, read from the environment and validated at start
 * (ARCHITECTURE.md § Configuration). A fresh clone needs none of these.
 */
export const ConfigSchema = z
  .object({
    CMS_DATA_DIR: z.string().min(1).default('./.trellis'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: Port.default(4000),
    /** On first start with an empty data dir: the secret of the platform-owner API key. */
    CMS_OWNER_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
    CMS_ENGINE: z.enum(['embedded', 'neo4j']).default('embedded'),
    /**
     * This server's name among the servers sharing one platform (shown by GET /api/health, the
     * holder of its build leases and deployment claims); unset: `<hostname>:<pid>:<random>`.
     * Must differ between servers running at the same time.
     */
    CMS_INSTANCE_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, . _ : - (at most 128)')
      .optional(),
    /**
     * How long a server's lease on a site environment's build queue holds (renewed every third of
     * it while the build runs); a server stopped during a build leaves the lease to another
     * once it has passed.
     */
    CMS_BUILD_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
    /**
     * The secret the audit chains are keyed with (HMAC-SHA256, docs/audit.md); unset: the file
     * `CMS_DATA_DIR/audit.key`, created on first start (mode 0600). Servers sharing one Neo4j
     * database from several hosts must set the same value.
     */
    CMS_AUDIT_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    NEO4J_URI: z
      .string()
      .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\//, 'must be a bolt:// or neo4j:// URI')
      .optional(),
    NEO4J_USER: z.string().default('neo4j'),
    NEO4J_PASSWORD: z.string().optional(),
    /** `community`: one database, graph name on every node. `enterprise`: one database per graph. */
    NEO4J_EDITION: z.enum(['community', 'enterprise']).default('community'),
    OIDC_ISSUER: z.url().optional(),
    OIDC_AUDIENCE: z.string().optional(),
    OIDC_JWKS_URL: z.url().optional(),
    /** Least time between JWKS refetches triggered by an unknown `kid` (a rotated key is seen after it). */
    OIDC_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
    MAX_QUERY_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).default(120_000),
    /** ms all of one build's transforms (Liquid and scripts) may take together; past it the build fails naming the transform. */
    TRANSFORM_BUDGET_MS: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
    /** Body limit of JSON requests on every route but the imports, in bytes (413 past it). */
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    /** Body limit of the import routes (`/api/import/*`), in bytes (413 past it). */
    IMPORT_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(32 * 1024 * 1024),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Which requests get a log line (http/logger.ts RequestLogController): `all` (each request
     * as it comes in and completes), `errors` (answered 400 or above), `off` (only those answered
     * 500 or above, or that failed): errors are never dropped.
     */
    CMS_REQUEST_LOG: z.enum(['all', 'errors', 'off']).default('all'),
    /** Trust X-Forwarded-For from this proxy address list (comma-separated) only. */
    TRUST_PROXY: z.string().optional(),
    /** Browser origins allowed to call the API (CORS), comma-separated; `*` for any; unset: CORS off. */
    CMS_CORS_ORIGINS: CorsOrigins.default([]),
    RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(600),
    RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
    /**
     * Failed authentications (401) per client address per `RATE_LIMIT_WINDOW_MS`; past it, that
     * address is answered 429 before authentication, whatever credential it sends.
     */
    AUTH_FAILURE_MAX: z.coerce.number().int().min(1).default(30),
    /** Lead posts (`POST /api/leads`) per client address per `LEADS_RATE_WINDOW_MS`; past it, 429 with `Retry-After`. */
    LEADS_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
    LEADS_RATE_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
    /** The largest lead post body, in bytes (413 past it). */
    LEADS_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(32 * 1024),
    /** Bug reports (`POST /api/bugs`) per reporter per `RATE_LIMIT_WINDOW_MS`; past it, 429 with `Retry-After`. */
    BUGS_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
    /** Non-public destinations outbound requests may reach anyway (see {@link OutboundAllow}). */
    CMS_OUTBOUND_ALLOW: OutboundAllow.default([]),
    /** Upper bound of one outbound request (serve check, stock search, embeddings, OIDC keys) with its redirects, in ms. */
    CMS_OUTBOUND_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /** Largest response body an outbound request reads, in bytes. */
    CMS_OUTBOUND_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(16 * 1024 * 1024),
    CMS_SCHEDULER: Bool.default(true),
    /**
     * How many build versions each site environment keeps on disk: after a build, older ones are
     * deleted (never the live one, nor one waiting for a scheduled switch); 0 keeps them all.
     * `POST /api/build/prune` (`cms builds prune`) prunes on demand.
     */
    CMS_BUILD_RETENTION: z.coerce.number().int().min(0).max(10_000).default(10),
    /**
     * How long a claim on a deployment being built holds (renewed every third of it while the
     * build runs): a process that stops during the build (kill -9) leaves the deployment to
     * another process, or to itself after a restart, once this has passed.
     */
    CMS_DEPLOY_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
    /** Whether this server sends webhook deliveries (every server queues them; docs/events.md). */
    CMS_WEBHOOKS: Bool.default(true),
    /** The delay before a failed webhook delivery's second attempt, in ms; doubled for each further one. */
    CMS_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
    /** The longest delay between two attempts of a webhook delivery, in ms. */
    CMS_WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).max(86_400_000).default(3_600_000),
    /** Attempts per webhook delivery before it ends `failed` (it can still be redelivered). */
    CMS_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
    /** Failed delivery attempts in a row after which a webhook subscription is disabled. */
    CMS_WEBHOOK_DISABLE_AFTER: z.coerce.number().int().min(1).max(10_000).default(20),
    /** Days a finished (succeeded or failed) webhook delivery is kept; 0 keeps them all. */
    CMS_WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
    /**
     * Where media files and published sites are kept (docs/storage.md): `local` (under
     * CMS_DATA_DIR) or `s3` (an S3-compatible bucket, S3_*): what several servers need to serve
     * the same files.
     */
    CMS_STORAGE: z.enum(['local', 's3']).default('local'),
    /** The S3 endpoint (`http://127.0.0.1:9090`, `https://s3.eu-west-1.amazonaws.com`); unset: AWS's for S3_REGION. */
    S3_ENDPOINT: z.url().optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** The bucket media and sites go to (required with CMS_STORAGE=s3; it must exist). */
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3-63 of a-z 0-9 . -)')
      .optional(),
    /** Static credentials; unset: the AWS SDK's default chain (environment, profile, instance role). */
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Path-style addressing (`<endpoint>/<bucket>/<key>`); unset: on when S3_ENDPOINT is set. */
    S3_FORCE_PATH_STYLE: Bool.optional(),
    /** A key prefix everything goes under (`trellis/` → `trellis/media/…`, `trellis/sites/…`); default none. */
    S3_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9!_.*'()/-]*$/, "may hold only letters, digits and !_.*'()/-")
      .refine((value) => !value.startsWith('/') && !value.includes('//'), 'must not start with / nor hold //')
      .transform((value) => (value === '' || value.endsWith('/') ? value : `${value}/`))
      .default(''),
    /**
     * A stock photo search endpoint answering `{items}` in the StockResponse shape for
     * `?provider=&q=&orientation=&page=&perPage=`: asked for a provider whose own key below is unset.
     */
    STOCK_PROVIDER_URL: z.url().optional(),
    /** Pexels API key (sent as `Authorization`): GET /api/media/stock?provider=pexels asks Pexels itself. */
    PEXELS_API_KEY: z.string().optional(),
    /** The Pexels API base URL (tests point it at a local server). */
    PEXELS_URL: z.url().default('https://api.pexels.com/v1'),
    /** Unsplash access key (sent as `Authorization: Client-ID …`). */
    UNSPLASH_ACCESS_KEY: z.string().optional(),
    /** The Unsplash API base URL. */
    UNSPLASH_URL: z.url().default('https://api.unsplash.com'),
    /** Pixabay API key (sent as the `key` query parameter). */
    PIXABAY_API_KEY: z.string().optional(),
    /** The Pixabay API base URL. */
    PIXABAY_URL: z.url().default('https://pixabay.com/api'),
    /** An OpenAI-compatible chat completions endpoint (`…/v1` or `…/v1/chat/completions`) for /api/ai; unset: /api/ai answers 503. */
    AI_URL: z.url().optional(),
    AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
    AI_API_KEY: z.string().optional(),
    /** /api/ai calls per site per minute (429 with Retry-After past it). */
    AI_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(20),
    /** How long one chat completion may take, in ms. */
    AI_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
    /** An OpenAI-compatible embeddings endpoint (`…/v1` or `…/v1/embeddings`); unset: the offline hashed-bow provider. */
    EMBEDDINGS_URL: z.url().optional(),
    EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
    EMBEDDINGS_API_KEY: z.string().optional(),
    /** The import throughput assumed when projecting an import's duration (gatewayTimeoutWarning). */
    IMPORT_ESTIMATED_RECORDS_PER_SEC: z.coerce.number().int().min(1).default(5000),
    /** How long GET one item and content lists may answer from this instance's cache, in ms (0 = off); this instance's writes show at once. */
    CONTENT_READ_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    /** How long the auth hook may reuse a user, site or membership read, in ms (0 = off); this instance's writes show at once. */
    ACCESS_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
    /**
     * Before an authenticated request uses the access and API-key caches, read the platform's
     * access epoch (one point read, shared by concurrent requests) so a key revoked or a member
     * changed on another server applies at once. Off only for a server that is alone on its
     * platform: changes made elsewhere then show within ACCESS_CACHE_MS (keys: 60 s).
     */
    ACCESS_EPOCH_CHECK: Bool.default(true),
    /** Load shedding (503): mean event-loop delay over a sample, in ms; 0 turns the check off. */
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().min(0).default(1000),
    /** Load shedding (503): V8 heap used, in bytes; 0 turns the check off. */
    LOAD_SHED_MAX_HEAP_USED_BYTES: z.coerce.number().int().min(0).default(0),
    /** Load shedding (503): resident set size, in bytes; 0 turns the check off. */
    LOAD_SHED_MAX_RSS_BYTES: z.coerce.number().int().min(0).default(0),
    /**
     * On SIGTERM/SIGINT: how long requests in flight (and async builds) may take to finish
     * before the process exits anyway (code 1).
     */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
    /** How often the load-shedding figures are sampled, in ms (at least 50: the event-loop histogram needs several 10 ms ticks per sample). */
    LOAD_SHED_SAMPLE_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
  })
  .superRefine((config, ctx) => {
    if (config.CMS_ENGINE === 'neo4j' && !config.NEO4J_URI) {
      ctx.addIssue({ code: 'custom', path: ['NEO4J_URI'], message: 'is required when CMS_ENGINE=neo4j' });
    }
    if (config.CMS_STORAGE === 's3' && !config.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when CMS_STORAGE=s3' });
    }
    if (!config.S3_ACCESS_KEY_ID !== !config.S3_SECRET_ACCESS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: [config.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'],
        message: 'is required with the other one: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together',
      });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;

/** Thrown by {@link loadConfig}; its message is one line naming every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads and validates the configuration from `env`. Empty strings count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(ConfigSchema.shape);
  const input: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'config'} ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
