import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBlog } from '../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { AGENT_TOOLS } from './agent-tools';

/**
 * `/api/agent` end to end: the MCP SDK's own client (Client + StreamableHTTPClientTransport)
 * against the real server listening on 127.0.0.1, on an embedded engine in a temp dir. Each tool
 * is called and its effect read back through the HTTP API; each role's limits hold.
 */
let site: ContentTestSite;
let base: string;
let otherSiteId: string;
const keys: Record<'viewer' | 'editor' | 'publisher' | 'foreign', string> = {
  viewer: '',
  editor: '',
  publisher: '',
  foreign: '',
};
const clients: Client[] = [];

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

async function connect(key: string, siteId = site.siteId): Promise<Client> {
  const client = new Client({ name: 'trellis-agent-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/agent`), {
    requestInit: { headers: { authorization: `Bearer ${key}`, 'x-site-id': siteId } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

function data(answer: ToolAnswer): Record<string, unknown> {
  expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
  return answer.structuredContent as Record<string, unknown>;
}

function refusal(answer: ToolAnswer): { code: string; error: string } {
  expect(answer.isError, JSON.stringify(answer.content)).toBe(true);
  const structured = answer.structuredContent as { code: string; error: string };
  expect(answer.content[0]?.text).toContain(structured.code);
  return structured;
}

beforeAll(async () => {
  site = await createContentTestSite({ slug: 'agent-blog' });
  await seedBlog(site);
  const { platform } = site;
  keys.viewer = (await platform.addUser({ name: 'viewer', siteId: site.siteId, role: 'viewer' })).key;
  keys.editor = (await platform.addUser({ name: 'editor', siteId: site.siteId, role: 'editor' })).key;
  keys.publisher = (
    await platform.addUser({ name: 'publisher', siteId: site.siteId, role: 'publisher' })
  ).key;
  const other = await platform.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${platform.ownerKey}` },
    payload: { name: 'Other', slug: 'agent-other', starterKit: 'none' },
  });
  expect(other.statusCode, other.body).toBe(201);
  otherSiteId = other.json().id;
  keys.foreign = (await platform.addUser({ name: 'foreign', siteId: otherSiteId, role: 'admin' })).key;
  base = await platform.app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await site?.close();
});

describe('/api/agent (MCP over Streamable HTTP)', () => {
  it('initializes and lists the tools, none of which publishes or deploys', async () => {
    const client = await connect(keys.viewer);
    expect(client.getServerVersion()?.name).toBe('trellis');
    expect(client.getInstructions()).toContain('publish');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(
      [
        'create_draft',
        'get_build',
        'get_item',
        'list_items',
        'list_saved_queries',
        'list_types',
        'propose_release',
        'run_saved_query',
        'search_content',
        'start_validate_build',
        'update_draft',
      ].sort(),
    );
    expect(names.some((name) => /publish|deploy|delete/.test(name))).toBe(false);
    const create = tools.find((tool) => tool.name === 'create_draft');
    expect(create?.inputSchema.required).toEqual(expect.arrayContaining(['type', 'fields']));
    expect(create?.annotations?.readOnlyHint).toBe(false);
  });

  it('states in each tool the permission of the route it calls', () => {
    for (const tool of AGENT_TOOLS) {
      const [method, url] = tool.route.split(' ');
      const route = site.platform.app.routeTable.find(
        (entry) => entry.method === method && entry.url === url,
      );
      expect(route, tool.route).toBeDefined();
      expect(route?.config.permission, tool.name).toBe(tool.permission);
    }
  });

  it('reads: list_types, search_content, get_item, list_items', async () => {
    const client = await connect(keys.viewer);
    const types = data(await call(client, 'list_types')).types as Array<{ name: string }>;
    expect(types.map((type) => type.name)).toContain('post');
    const post = data(await call(client, 'list_types', { name: 'post' })).type as { fields: unknown[] };
    expect(post.fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'title' })]));

    const found = data(await call(client, 'search_content', { q: 'second' })).results as Array<{
      type: string;
      items: Array<{ id: string }>;
    }>;
    expect(found.map((group) => group.type)).toEqual(['post']);
    expect(found[0]?.items.map((item) => item.id)).toEqual(['post:second-post']);

    const item = data(await call(client, 'get_item', { id: 'post:hello-world' }));
    expect(item).toMatchObject({
      item: { id: 'post:hello-world', fields: { title: 'Hello world' } },
      version: 1,
    });
    expect(refusal(await call(client, 'get_item', { id: 'post:nope' })).code).toBe('not_found');

    const listed = data(await call(client, 'list_items', { type: 'post', where: "title == 'Second post'" }));
    expect(listed).toMatchObject({ total: 1, items: [{ id: 'post:second-post' }] });
    const sorted = data(await call(client, 'list_items', { type: 'post', sort: '-title', limit: 1 }));
    expect(sorted).toMatchObject({ total: 2, items: [{ id: 'post:second-post' }] });
    expect(refusal(await call(client, 'list_items', { type: 'post', where: 'nofield == 1' })).code).toBe(
      'invalid_list_query',
    );
  });

  it('offers the content types as resources', async () => {
    const client = await connect(keys.viewer);
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: 'trellis://types/post', name: 'post', mimeType: 'application/json' }),
    ]);
    const read = await client.readResource({ uri: 'trellis://types/post' });
    const type = JSON.parse(String((read.contents[0] as { text: string }).text));
    expect(type).toMatchObject({ name: 'post', routePattern: '/posts/{slug}/' });
    expect(type.fields.map((field: { name: string }) => field.name)).toEqual(['title', 'body']);
    await expect(client.readResource({ uri: 'trellis://types/nope' })).rejects.toThrow(/not_found/);
  });

  it('writes drafts as an editor, visible through the HTTP API, and refuses a stale version', async () => {
    const client = await connect(keys.editor);
    const created = data(
      await call(client, 'create_draft', {
        type: 'post',
        slug: 'from-agent',
        fields: { title: 'From the agent', body: 'Drafted **by** an agent' },
      }),
    );
    expect(created).toMatchObject({ item: { id: 'post:from-agent' }, version: 1 });
    const read = await site.request({ method: 'GET', url: '/api/content/post/post:from-agent' });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ status: 'draft', fields: { title: 'From the agent' } });
    expect(read.json().publishedEnvs ?? []).toEqual([]);

    const updated = data(
      await call(client, 'update_draft', {
        id: 'post:from-agent',
        fields: { title: 'Edited by the agent' },
        expectedVersion: 1,
      }),
    );
    expect(updated).toMatchObject({ version: 2 });
    const reread = await site.request({ method: 'GET', url: '/api/content/post/post:from-agent' });
    expect(reread.json().fields.title).toBe('Edited by the agent');
    const stale = refusal(
      await call(client, 'update_draft', {
        id: 'post:from-agent',
        fields: { title: 'Lost' },
        expectedVersion: 1,
      }),
    );
    expect(stale.code).toBe('version_conflict');
    const invalid = refusal(
      await call(client, 'create_draft', { type: 'post', fields: { body: 'no title' } }),
    );
    expect(invalid.code).toBe('validation_failed');
    // Arguments outside the tool's input schema are refused by the SDK before the tool runs.
    const malformed = await call(client, 'create_draft', { type: 'post' });
    expect(malformed.isError).toBe(true);
    expect(malformed.content[0]?.text).toMatch(/validation/i);
  });

  it('refuses writes to a viewer key: nothing is created or changed', async () => {
    const client = await connect(keys.viewer);
    const refused = refusal(
      await call(client, 'create_draft', {
        type: 'post',
        slug: 'by-viewer',
        fields: { title: 'By a viewer' },
      }),
    );
    expect(refused.code).toBe('forbidden');
    expect(refused.error).toMatch(/access/);
    expect((await site.request({ method: 'GET', url: '/api/content/post/post:by-viewer' })).statusCode).toBe(
      404,
    );
    expect(
      refusal(
        await call(client, 'update_draft', { id: 'post:hello-world', fields: { title: 'Viewer was here' } }),
      ).code,
    ).toBe('forbidden');
    const hello = await site.request({ method: 'GET', url: '/api/content/post/post:hello-world' });
    expect(hello.json().fields.title).toBe('Hello world');
    expect(refusal(await call(client, 'start_validate_build')).code).toBe('forbidden');
    expect(
      refusal(await call(client, 'propose_release', { name: 'v', items: [{ id: 'post:hello-world' }] })).code,
    ).toBe('forbidden');
  });

  it('runs a saved query', async () => {
    const saved = await site.request({
      method: 'POST',
      url: '/api/queries',
      payload: {
        name: 'posts-titled',
        query: { type: 'post', where: 'title contains $word', select: ['title'] },
        params: { word: { type: 'string', required: true } },
      },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const client = await connect(keys.viewer);
    const queries = data(await call(client, 'list_saved_queries')).queries as Array<{ name: string }>;
    expect(queries.map((query) => query.name)).toContain('posts-titled');
    const rows = data(
      await call(client, 'run_saved_query', { name: 'posts-titled', params: { word: 'hello' } }),
    );
    expect(rows).toMatchObject({ total: 1, items: [{ id: 'post:hello-world', title: 'Hello world' }] });
    expect(refusal(await call(client, 'run_saved_query', { name: 'posts-titled' })).code).toBe(
      'invalid_query_params',
    );
  });

  it('validates the build as a publisher: the planted template error comes back, and nothing is recorded', async () => {
    const planted = await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '<h1>{{ item.title }}</h1>{% render "missing-partial" %}' },
    });
    expect(planted.statusCode, planted.body).toBe(200);
    try {
      const client = await connect(keys.publisher);
      const validated = data(await call(client, 'start_validate_build'));
      expect(validated).toMatchObject({ mode: 'validate', ok: false, status: 'error' });
      expect(JSON.stringify(validated)).toContain('missing-partial');
      const again = data(await call(client, 'get_build', { buildId: validated.buildId }));
      expect(again).toEqual(validated);
      // An unknown id is not found, and another site's connection never reads this one.
      expect(refusal(await call(client, 'get_build', { buildId: 'b-nope' })).code).toBe('not_found');
      const elsewhere = await connect(keys.foreign, otherSiteId);
      expect(refusal(await call(elsewhere, 'get_build', { buildId: validated.buildId })).code).toBe(
        'not_found',
      );
      const history = await site.request({ method: 'GET', url: '/api/build/history?env=dev' });
      expect(history.json()).toEqual([]);
    } finally {
      const restored = await site.request({
        method: 'PUT',
        url: '/api/templates/post',
        payload: { content: '<h1>{{ item.title }}</h1>{{ item.body | markdown }}' },
      });
      expect(restored.statusCode).toBe(200);
    }
    const client = await connect(keys.publisher);
    expect(data(await call(client, 'start_validate_build'))).toMatchObject({ ok: true, transformErrors: [] });
  });

  it('proposes a release that shows up unpublished in /api/releases', async () => {
    const client = await connect(keys.publisher);
    const proposed = data(
      await call(client, 'propose_release', {
        name: 'agent-proposal',
        intent: 'Ship the first post',
        items: [{ id: 'post:hello-world' }],
      }),
    );
    expect(proposed.release).toMatchObject({ id: 'release:agent-proposal', state: 'draft' });
    const listed = await site.request({ method: 'GET', url: '/api/releases' });
    const release = (listed.json() as Array<Record<string, unknown>>).find(
      (r) => r.id === 'release:agent-proposal',
    );
    expect(release).toMatchObject({ state: 'draft' });
    const full = await site.request({ method: 'GET', url: '/api/releases/release:agent-proposal' });
    expect(full.json().includes).toEqual([
      expect.objectContaining({ kind: 'content', versionableId: 'post:hello-world', version: 1 }),
    ]);
    expect((await site.request({ method: 'GET', url: '/api/releases/deployments' })).json()).toEqual([]);
    expect(
      refusal(
        await call(client, 'propose_release', {
          name: 'agent-proposal',
          items: [{ id: 'post:hello-world' }],
        }),
      ).code,
    ).toBe('conflict');
  });

  it('answers 401 without a key, 403 on a site the key cannot reach, 405 to GET', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/api/agent`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
    const none = await post({ 'x-site-id': site.siteId });
    expect(none.status).toBe(401);
    expect((await none.json()).code).toBe('unauthenticated');
    const foreign = await post({ authorization: `Bearer ${keys.foreign}`, 'x-site-id': site.siteId });
    expect(foreign.status).toBe(403);
    const unknown = await post({ authorization: `Bearer ${keys.editor}`, 'x-site-id': otherSiteId });
    expect(unknown.status).toBe(403);
    const missing = await post({ authorization: `Bearer ${keys.editor}` });
    expect(missing.status).toBe(400);
    expect((await missing.json()).code).toBe('site_required');
    const fine = await post({ authorization: `Bearer ${keys.editor}`, 'x-site-id': site.siteId });
    expect(fine.status).toBe(200);
    expect((await fine.json()).result.serverInfo.name).toBe('trellis');

    const notRpc = await fetch(`${base}/api/agent`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keys.editor}`,
        'x-site-id': site.siteId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(notRpc.status).toBe(400);
    expect((await notRpc.json()).code).toBe('validation_failed');

    await expect(connect(keys.foreign)).rejects.toThrow();
    await expect(connect('tk_000000000000_not-a-real-key')).rejects.toThrow();
    const get = await fetch(`${base}/api/agent`, {
      headers: {
        authorization: `Bearer ${keys.viewer}`,
        'x-site-id': site.siteId,
        accept: 'text/event-stream',
      },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await get.json()).code).toBe('method_not_allowed');
  });
});
