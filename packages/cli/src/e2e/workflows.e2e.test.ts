import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type CliRun, cms, type ServerProcess, startServer } from './harness';
import {
  type Client,
  clientOf,
  createPostSite,
  loadSdk,
  pageTitle,
  pageUrl,
  type Site,
} from './release-site';

const SLUG = 'flow';

/**
 * Workflows end to end: the built server as a child process, driven through the built SDK
 * (`site.workflows`) and the built `cms`. An editor submits a post for review, is refused the
 * move into `published` (and the publish shortcut); a publisher takes it live, and the prod
 * build serves its page.
 */
describe('workflows through the SDK and the CLI', { timeout: 180_000 }, () => {
  let server: ServerProcess;
  let owner: Client;
  let site: Site;
  let work: string;
  const keys: Record<'editor' | 'publisher', string> = { editor: '', publisher: '' };

  const run = (role: 'editor' | 'publisher' | 'owner', ...args: string[]): Promise<CliRun> =>
    cms(
      [
        ...args,
        '--url',
        server.url,
        '--site',
        `site:${SLUG}`,
        '--key',
        role === 'owner' ? server.ownerKey : keys[role],
      ],
      { env: { XDG_CONFIG_HOME: join(work, 'config') }, cwd: work },
    );

  beforeAll(async () => {
    assertBuilt();
    server = await startServer({ LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' });
    work = await mkdtemp(join(tmpdir(), 'cms-workflows-'));
    owner = await clientOf(server.url, server.ownerKey);
    site = await createPostSite(owner, SLUG);
    for (const role of ['editor', 'publisher'] as const) {
      keys[role] = (await site.apiKeys.create({ name: `${role} key`, role })).secret;
    }
    await site.content.create('post', { slug: 'hello', title: 'Hello' });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('creates a workflow with the CLI and lists it through the SDK', async () => {
    await writeFile(
      join(work, 'review.json'),
      JSON.stringify({
        name: 'review',
        types: ['post'],
        initial: 'draft',
        states: [{ name: 'draft' }, { name: 'review' }, { name: 'published' }],
        transitions: [
          { name: 'submit', from: 'draft', to: 'review', roles: ['editor'] },
          { name: 'publish', from: 'review', to: 'published', roles: ['publisher'], requireComment: true },
        ],
      }),
    );
    const refused = await run('editor', 'workflows', 'create', 'review.json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: 403/);
    const created = await run('owner', 'workflows', 'create', 'review.json');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Created workflow review.');
    expect((await site.workflows.list()).map((workflow) => workflow.name)).toEqual(['review']);
  });

  it('refuses the editor the move into published, and the publisher makes the post live', async () => {
    const submitted = await run('editor', 'workflows', 'transition', 'post:hello', 'review', '-m', 'ready');
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout).toBe('Moved post:hello: draft -> review.\n');

    const editorMove = await run('editor', 'workflows', 'transition', 'post:hello', 'published', '-m', 'go');
    expect(editorMove.code).toBe(1);
    expect(editorMove.stderr).toContain('403 workflow_transition_forbidden');
    const sdk = await loadSdk();
    const editor = sdk
      .createClient({ baseUrl: server.url, apiKey: keys.editor, retry: false })
      .site(`site:${SLUG}`);
    const shortcut = await editor.content.publish('post', 'post:hello').catch((error: unknown) => error);
    expect(sdk.isApiError(shortcut) && shortcut.code).toBe('workflow_transition_forbidden');

    const publisher = sdk
      .createClient({ baseUrl: server.url, apiKey: keys.publisher, retry: false })
      .site(`site:${SLUG}`);
    const bare = await publisher.workflows
      .transition('post:hello', { to: 'published' })
      .catch((e: unknown) => e);
    expect(sdk.isApiError(bare) && bare.code).toBe('workflow_comment_required');
    const moved = await publisher.workflows.transition('post:hello', { to: 'published', comment: 'ship it' });
    expect(moved.state).toMatchObject({ state: 'published', live: true, publishedEnvs: ['prod'] });

    await owner.site(`site:${SLUG}`).build.run({ env: 'prod', mode: 'full' });
    expect(await pageTitle(pageUrl(server.url, SLUG, 'prod', 'hello'))).toBe('Hello');

    const state = await run('editor', 'workflows', 'state', 'post:hello');
    expect(state.code, state.stderr).toBe(0);
    expect(state.stdout).toContain('post:hello: published (workflow review, live in prod)');
    expect(state.stdout).toContain('review -> published');
    expect(state.stdout).toContain('"ship it"');
  });
});
