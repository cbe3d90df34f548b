import { z } from 'zod';
import type { ApiAnswer, ApiCall } from './api-call';
import type { ValidateResults } from './validate-results';

/** The result of one tool call, in the MCP `CallToolResult` shape. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a tool runs with: the API as the caller, and the validate results kept by this server. */
export interface ToolContext {
  api: ApiCall;
  validateResults: ValidateResults;
  /** The site the connection works on (`X-Site-Id`). */
  siteId: string;
}

/** One agent tool: its MCP name, description, input shape (zod) and what it does. */
export interface AgentTool {
  name: string;
  title: string;
  description: string;
  /**
   * The permission the tool's HTTP route needs (docs/permissions.md), shown in its description.
   * The route checks it; this is only what the tool list tells the agent.
   */
  permission: 'content:read' | 'content:write' | 'build:run' | 'release:manage';
  /** The route whose permission that is (`METHOD pattern`); a test checks the two agree. */
  route: string;
  isReadOnly: boolean;
  input: z.ZodRawShape;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** A refused or failed tool call: an MCP tool error that carries the Trellis code and message. */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number | null,
    readonly hint?: string,
  ) {
    super(message);
  }

  toResult(): ToolResult {
    const text = `${this.code}${this.status ? ` (HTTP ${this.status})` : ''}: ${this.message}${this.hint ? ` ${this.hint}` : ''}`;
    return {
      isError: true,
      content: [{ type: 'text', text }],
      structuredContent: {
        error: this.message,
        code: this.code,
        ...(this.status ? { status: this.status } : {}),
        ...(this.hint ? { hint: this.hint } : {}),
      },
    };
  }
}

/** The body of a 2xx answer, else a {@link ToolFailure} with the API's `{error, code, hint}`. */
export function ok(answer: ApiAnswer): unknown {
  if (answer.status < 300) return answer.body;
  const body = (answer.body ?? {}) as { error?: unknown; code?: unknown; hint?: unknown };
  throw new ToolFailure(
    typeof body.code === 'string' ? body.code : 'http_error',
    typeof body.error === 'string' ? body.error : `The API answered ${answer.status}.`,
    answer.status,
    typeof body.hint === 'string' ? body.hint : undefined,
  );
}

/** A successful tool result: the value as JSON text and as structured content. */
function result(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** The item version an ETag (`"3"`) names, or null. */
function versionOf(etag: string | null): number | null {
  const match = etag ? /^(?:W\/)?"(\d+)"$/.exec(etag) : null;
  return match ? Number(match[1]) : null;
}

/** The type of a full item id `<type>:<slug>`. */
function typeOfId(id: string): string {
  const colon = id.indexOf(':');
  if (colon <= 0) {
    throw new ToolFailure(
      'validation_failed',
      `The item id \`${id}\` is not a full id: give \`<type>:<slug>\` (get_item and list_items return them).`,
      null,
    );
  }
  return id.slice(0, colon);
}

const seg = encodeURIComponent;

const ItemId = z
  .string()
  .min(3)
  .max(300)
  .describe('The full item id, `<type>:<slug>` (e.g. `post:hello-world`).');
const TypeName = z.string().min(1).max(100).describe('A content type name (list_types lists them).');
const Fields = z
  .record(z.string(), z.unknown())
  .describe(
    'Field values by field name, checked against the type (list_types with `name` shows its fields).',
  );
const Relationships = z
  .record(z.string(), z.unknown())
  .describe('Relationship targets by relationship name: an item id, or an array of ids.');

const WHERE_HELP =
  "`where` is the list language: `<field> <op> <value>` conditions joined by `and`, op one of `== != > >= < <= contains` (e.g. `year >= 2000 and tags contains 'sf'`); fields are the type's and `status`, `createdAt`, `updatedAt`. `sort` is field names separated by commas, `-` for descending (e.g. `-year,title`).";

/** Reads an item with its version (from the ETag). */
async function readItem(
  api: ApiCall,
  id: string,
): Promise<{ record: Record<string, unknown>; version: number | null }> {
  const answer = await api({ method: 'GET', url: `/api/content/${seg(typeOfId(id))}/${seg(id)}` });
  return { record: ok(answer) as Record<string, unknown>, version: versionOf(answer.etag) };
}

/**
 * The agent's tools. Each is one or a few calls of the HTTP API as the caller
 * ({@link ApiCall}), so each is refused exactly when the same HTTP request would be. There is no
 * tool that publishes, unpublishes, deploys, deletes or changes types, templates or members,
 * whatever the key's role: an agent drafts and proposes, people publish.
 */
export const AGENT_TOOLS: readonly AgentTool[] = [
  {
    name: 'list_types',
    title: 'List content types',
    description:
      "The site's content types with their fields (name and type). With `name`, that one type in full: every field's rules (required, enum values, lengths), its relationships and route pattern.",
    permission: 'content:read',
    route: 'GET /api/types',
    isReadOnly: true,
    input: { name: TypeName.optional() },
    async run(args, { api }) {
      if (typeof args.name === 'string') {
        return result({ type: ok(await api({ method: 'GET', url: `/api/types/${seg(args.name)}` })) });
      }
      return result({ types: ok(await api({ method: 'GET', url: '/api/types' })) });
    },
  },
  {
    name: 'search_content',
    title: 'Search content',
    description:
      'Full-text search over the text fields of items (the same search as `q` on GET /api/content/{type}), best matches first. Searches one type with `type`, else every type (results grouped by type, types without a match left out). Drafts and published items alike.',
    permission: 'content:read',
    route: 'GET /api/content/:type',
    isReadOnly: true,
    input: {
      q: z.string().min(1).max(500).describe('The words to search for.'),
      type: TypeName.optional(),
      limit: z.number().int().min(1).max(50).optional().describe('Matches per type (default 10).'),
    },
    async run(args, { api }) {
      const limit = (args.limit as number | undefined) ?? 10;
      const types =
        typeof args.type === 'string'
          ? [args.type]
          : ((ok(await api({ method: 'GET', url: '/api/types' })) as Array<{ name: string }>) ?? []).map(
              (type) => type.name,
            );
      const results: Array<{ type: string; total: number; items: unknown[] }> = [];
      for (const type of types) {
        const page = ok(
          await api({
            method: 'GET',
            url: `/api/content/${seg(type)}`,
            query: { q: args.q as string, limit, withMeta: 1 },
          }),
        ) as { items: unknown[]; total: number };
        if (page.total > 0 || typeof args.type === 'string') {
          results.push({ type, total: page.total, items: page.items });
        }
      }
      return result({ q: args.q, results });
    },
  },
  {
    name: 'get_item',
    title: 'Read an item',
    description:
      'One item by its full id (`<type>:<slug>`): its fields, relationships, status and `version` (pass it to update_draft as `expectedVersion`).',
    permission: 'content:read',
    route: 'GET /api/content/:type/:id',
    isReadOnly: true,
    input: { id: ItemId },
    async run(args, { api }) {
      const { record, version } = await readItem(api, args.id as string);
      return result({ item: record, version });
    },
  },
  {
    name: 'list_items',
    title: 'List items of a type',
    description: `Items of one type, paged (\`total\` counts every match). ${WHERE_HELP} \`status\` is \`draft\` or \`published\`; \`q\` adds full-text search. Listed items carry no relationships (get_item has them).`,
    permission: 'content:read',
    route: 'GET /api/content/:type',
    isReadOnly: true,
    input: {
      type: TypeName,
      where: z.string().max(2000).optional().describe('Conditions in the list language.'),
      sort: z.string().max(500).optional().describe('Sort keys, e.g. `-date,title`.'),
      status: z.enum(['draft', 'published']).optional(),
      q: z.string().max(500).optional().describe('Full-text search words.'),
      limit: z.number().int().min(1).max(1000).optional().describe('Default 20.'),
      offset: z.number().int().min(0).optional(),
    },
    async run(args, { api }) {
      const page = ok(
        await api({
          method: 'GET',
          url: `/api/content/${seg(args.type as string)}`,
          query: {
            withMeta: 1,
            limit: (args.limit as number | undefined) ?? 20,
            offset: args.offset as number | undefined,
            where: args.where as string | undefined,
            sort: args.sort as string | undefined,
            status: args.status as string | undefined,
            q: args.q as string | undefined,
          },
        }),
      ) as Record<string, unknown>;
      return result(page);
    },
  },
  {
    name: 'create_draft',
    title: 'Create a draft item',
    description:
      'Creates an item of `type` as a draft (live nowhere until a person publishes it). The id is `<type>:<slug>`: the slug from `slug`, else from the type’s key field. Fields are checked against the type (400 `validation_failed` names each problem). Needs the content:write permission (editor or above).',
    permission: 'content:write',
    route: 'POST /api/content/:type',
    isReadOnly: false,
    input: {
      type: TypeName,
      fields: Fields,
      relationships: Relationships.optional(),
      slug: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe('The slug of the new item’s id (default: from its key field).'),
    },
    async run(args, { api }) {
      const type = args.type as string;
      const body =
        typeof args.slug === 'string'
          ? {
              ...(args.fields as Record<string, unknown>),
              id: `${type}:${args.slug}`,
              ...(args.relationships ? { relationships: args.relationships } : {}),
            }
          : { fields: args.fields, ...(args.relationships ? { relationships: args.relationships } : {}) };
      const answer = await api({ method: 'POST', url: `/api/content/${seg(type)}`, body });
      return result({ item: ok(answer), version: versionOf(answer.etag) });
    },
  },
  {
    name: 'update_draft',
    title: 'Edit an item',
    description:
      'Changes an item’s fields (given ones replace the stored ones, `null` clears one) or relationships, as a new version of it. What is live stays live: an environment keeps serving the version published there until a person publishes again. With `expectedVersion` (from get_item), 409 `version_conflict` instead of overwriting a change made since. Needs the content:write permission (editor or above).',
    permission: 'content:write',
    route: 'PATCH /api/content/:type/:id',
    isReadOnly: false,
    input: {
      id: ItemId,
      fields: Fields.optional(),
      relationships: Relationships.optional(),
      expectedVersion: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('The version you read (get_item `version`).'),
    },
    async run(args, { api }) {
      const id = args.id as string;
      if (args.fields === undefined && args.relationships === undefined) {
        throw new ToolFailure('validation_failed', 'Give `fields` or `relationships` to change.', null);
      }
      const body: Record<string, unknown> = {};
      if (args.fields !== undefined) body.fields = args.fields;
      if (args.relationships !== undefined) body.relationships = args.relationships;
      if (args.expectedVersion !== undefined) body.expectedVersion = args.expectedVersion;
      const answer = await api({
        method: 'PATCH',
        url: `/api/content/${seg(typeOfId(id))}/${seg(id)}`,
        body,
      });
      return result({ item: ok(answer), version: versionOf(answer.etag) });
    },
  },
  {
    name: 'list_saved_queries',
    title: 'List saved queries',
    description:
      'The site’s saved queries (name, description, the query and its parameters), for run_saved_query.',
    permission: 'content:read',
    route: 'GET /api/queries',
    isReadOnly: true,
    input: {},
    async run(_args, { api }) {
      return result({ queries: ok(await api({ method: 'GET', url: '/api/queries' })) });
    },
  },
  {
    name: 'run_saved_query',
    title: 'Run a saved query',
    description:
      'Runs a saved query by name with its parameters (checked against the declared types: 400 `invalid_query_params`). Rows hold `id`, `type` and the selected values; `total` counts every match.',
    permission: 'content:read',
    route: 'POST /api/queries/:name/run',
    isReadOnly: true,
    input: {
      name: z.string().min(1).max(100).describe('The saved query’s name (list_saved_queries lists them).'),
      params: z.record(z.string(), z.unknown()).optional().describe('Values of the query’s `$` parameters.'),
      limit: z.number().int().min(1).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
    },
    async run(args, { api }) {
      const body: Record<string, unknown> = {};
      for (const key of ['params', 'limit', 'offset'] as const) {
        if (args[key] !== undefined) body[key] = args[key];
      }
      return result(
        ok(
          await api({ method: 'POST', url: `/api/queries/${seg(args.name as string)}/run`, body }),
        ) as Record<string, unknown>,
      );
    },
  },
  {
    name: 'start_validate_build',
    title: 'Validate the site build',
    description:
      'Renders the site in memory as a build of `env` would (default `dev`: every item at its head version, drafts included), deploys nothing and records no build. Answers when it has rendered: `ok`, the artifact count and `transformErrors` (each `{contentId, transform, error}`: a template that does not render, with the item it failed on). get_build reads the result again by `buildId`. Needs the build:run permission (publisher or above).',
    permission: 'build:run',
    route: 'POST /api/build',
    isReadOnly: true,
    input: {
      env: z.string().min(1).max(64).optional().describe('The environment to validate (default `dev`).'),
    },
    async run(args, { api, validateResults, siteId }) {
      const build = ok(
        await api({
          method: 'POST',
          url: '/api/build',
          body: { mode: 'validate', ...(typeof args.env === 'string' ? { env: args.env } : {}) },
        }),
      ) as Record<string, unknown>;
      const summary = validateSummary(build);
      validateResults.remember(siteId, summary);
      return result(summary);
    },
  },
  {
    name: 'get_build',
    title: 'Read a build',
    description:
      'A build by id: a validate build started by start_validate_build (kept by this server for 30 minutes), or a recorded build (`status` running, ok or error, with its counts and errors).',
    permission: 'content:read',
    route: 'GET /api/build/status/:buildId',
    isReadOnly: true,
    input: { buildId: z.string().min(1).max(200) },
    async run(args, { api, validateResults, siteId }) {
      const buildId = args.buildId as string;
      // Kept per site: the request that brought this call was just checked against the site.
      const kept = validateResults.get(siteId, buildId);
      if (kept) return result(kept);
      return result(
        ok(await api({ method: 'GET', url: `/api/build/status/${seg(buildId)}` })) as Record<string, unknown>,
      );
    },
  },
  {
    name: 'propose_release',
    title: 'Propose a release',
    description:
      'Creates a draft release bundling exact item versions (each item at `version`, default its current head), for a person to review, approve and deploy. It publishes and deploys nothing. 409 when a release of that name exists. Needs the release:manage permission (publisher or above).',
    permission: 'release:manage',
    route: 'POST /api/releases',
    isReadOnly: false,
    input: {
      name: z
        .string()
        .min(1)
        .max(100)
        .describe('The release name (letters, digits, `-`, `_`, `.`); its id is `release:<name>`.'),
      description: z.string().max(2000).optional(),
      intent: z.string().max(2000).optional().describe('Why: what the release is for.'),
      items: z
        .array(
          z.object({
            id: ItemId,
            version: z.number().int().min(1).optional().describe('Default: the item’s current version.'),
          }),
        )
        .min(1)
        .max(500),
    },
    async run(args, { api }) {
      const includes: Array<Record<string, unknown>> = [];
      for (const item of args.items as Array<{ id: string; version?: number }>) {
        const version = item.version ?? (await readItem(api, item.id)).version;
        if (version === null) {
          throw new ToolFailure('internal_error', `The version of ${item.id} could not be read.`, null);
        }
        const recorded = ok(
          await api({
            method: 'GET',
            url: `/api/content/${seg(typeOfId(item.id))}/${seg(item.id)}/versions/${version}`,
          }),
        ) as { hash: string };
        includes.push({ kind: 'content', versionableId: item.id, version, hash: recorded.hash });
      }
      const body: Record<string, unknown> = { name: args.name, includes };
      if (args.description !== undefined) body.description = args.description;
      if (args.intent !== undefined) body.intent = args.intent;
      return result({ release: ok(await api({ method: 'POST', url: '/api/releases', body })) });
    },
  },
];

/** The part of a validate build's result an agent needs (the artifact paths left out: they can be many). */
function validateSummary(build: Record<string, unknown>): Record<string, unknown> {
  const paths = Array.isArray(build.artifactPaths) ? (build.artifactPaths as string[]) : [];
  return {
    buildId: build.buildId,
    mode: 'validate',
    status: build.ok === false ? 'error' : 'ok',
    ok: build.ok,
    artifacts: build.artifacts,
    durationMs: build.durationMs,
    ...(typeof build.error === 'string' ? { error: build.error } : {}),
    transformErrors: build.transformErrors ?? [],
    artifactPathsSample: paths.slice(0, 20),
  };
}
