import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/** draft → review → approved → published, with review ⇄ draft; each move open to some roles. */
const EDITORIAL = {
  name: 'editorial',
  description: 'Posts are reviewed before they go out.',
  types: ['post'],
  initial: 'draft',
  states: [{ name: 'draft' }, { name: 'review' }, { name: 'approved' }, { name: 'published' }],
  transitions: [
    { name: 'submit', from: 'draft', to: 'review', roles: ['editor', 'admin'] },
    { name: 'reject', from: 'review', to: 'draft', roles: ['admin'], requireComment: true },
    { name: 'approve', from: 'review', to: 'approved', roles: ['admin'] },
    { name: 'publish', from: 'approved', to: 'published', roles: ['publisher'] },
    { name: 'retract', from: 'published', to: 'draft', roles: ['publisher', 'admin'] },
  ],
};

const HELLO = 'post:hello-world';

describe('workflows', () => {
  let site: ContentTestSite;
  let as: Record<'editor' | 'publisher' | 'admin' | 'viewer', Record<string, string>>;

  beforeEach(async () => {
    site = await createContentTestSite({ slug: 'blog' });
    await seedBlog(site);
    const headers = async (role: 'editor' | 'publisher' | 'admin' | 'viewer') => {
      const user = await site.platform.addUser({ name: `${role}-user`, siteId: site.siteId, role });
      return { authorization: `Bearer ${user.key}` };
    };
    as = {
      editor: await headers('editor'),
      publisher: await headers('publisher'),
      admin: await headers('admin'),
      viewer: await headers('viewer'),
    };
  });
  afterEach(async () => {
    await site.close();
  });

  const move = (headers: Record<string, string>, id: string, payload: Record<string, unknown>) =>
    site.request({ method: 'POST', url: `/api/workflows/${id}/transition`, headers, payload });
  const stateOf = async (id: string, headers: Record<string, string> = {}) => {
    const response = await site.request({ method: 'GET', url: `/api/workflows/${id}/state`, headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const servedProdPage = async () => {
    const built = await site.request({
      method: 'POST',
      url: '/api/build?env=prod',
      payload: { mode: 'full' },
    });
    expect(built.statusCode, built.body).toBe(200);
    return site.platform.app.inject({ method: 'GET', url: '/sites/blog/prod/posts/hello-world/' });
  };

  it('keeps today’s behaviour with the built-in workflow, and records the publish as a move', async () => {
    expect(await stateOf(HELLO, as.publisher)).toMatchObject({
      workflow: 'default',
      state: 'draft',
      live: false,
      next: ['published'],
      allowed: [{ name: 'publish', to: 'published', requireComment: false, publishes: true }],
      history: [],
    });
    expect((await stateOf(HELLO, as.viewer)).allowed).toEqual([]);

    const published = await site.request({
      method: 'POST',
      url: `/api/content/post/${HELLO}/publish`,
      headers: as.publisher,
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json()).toMatchObject({ status: 'published', publishedEnvs: ['prod'] });
    const state = await stateOf(HELLO);
    expect(state).toMatchObject({ workflow: 'default', state: 'published', live: true });
    expect(state.history).toMatchObject([
      { from: 'draft', to: 'published', transition: 'publish', version: 1 },
    ]);
    // One audit entry per publish, as before; it names the workflow move.
    const audit = await site.request({
      method: 'GET',
      url: `/api/audit?target=${HELLO}&action=content.publish`,
    });
    expect(audit.json().items).toMatchObject([
      {
        action: 'content.publish',
        data: { workflow: { name: 'default', transition: 'publish', from: 'draft', to: 'published' } },
      },
    ]);

    const unpublished = await site.request({
      method: 'POST',
      url: `/api/content/post/${HELLO}/unpublish`,
      headers: as.publisher,
    });
    expect(unpublished.statusCode, unpublished.body).toBe(200);
    expect(unpublished.json()).toMatchObject({ status: 'draft', publishedEnvs: [] });
    const afterUnpublish = await stateOf(HELLO);
    expect(afterUnpublish.state).toBe('draft');
    expect(afterUnpublish.history.map((entry: { transition: string }) => entry.transition)).toEqual([
      'unpublish',
      'publish',
    ]);

    // Deleting the item deletes its workflow history: re-created, it starts afresh.
    expect((await site.request({ method: 'DELETE', url: `/api/content/post/${HELLO}` })).statusCode).toBe(
      204,
    );
    const again = await site.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'Hello world' },
    });
    expect(again.statusCode).toBe(201);
    expect(await stateOf(HELLO)).toMatchObject({ state: 'draft', history: [] });
  });

  it('manages workflow definitions: admin-only writes, one workflow per type, in_use while items sit in its states', async () => {
    const refused = await site.request({
      method: 'POST',
      url: '/api/workflows',
      headers: as.editor,
      payload: EDITORIAL,
    });
    expect(refused.statusCode).toBe(403);
    const created = await site.request({
      method: 'POST',
      url: '/api/workflows',
      headers: as.admin,
      payload: EDITORIAL,
    });
    expect(created.statusCode, created.body).toBe(201);
    const etag = created.headers.etag as string;

    const second = await site.request({
      method: 'POST',
      url: '/api/workflows',
      payload: { ...EDITORIAL, name: 'other' },
    });
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatch(/post.*already follows workflow `editorial`/);
    const unknownType = await site.request({
      method: 'POST',
      url: '/api/workflows',
      payload: { ...EDITORIAL, name: 'other', types: ['nope'] },
    });
    expect(unknownType.statusCode).toBe(400);
    const broken = await site.request({
      method: 'PATCH',
      url: '/api/workflows/editorial',
      payload: { initial: 'missing' },
    });
    expect(broken.statusCode).toBe(400);

    const list = await site.request({ method: 'GET', url: '/api/workflows', headers: as.viewer });
    expect(list.json().map((workflow: { name: string }) => workflow.name)).toEqual(['editorial']);
    const stale = await site.request({
      method: 'PATCH',
      url: '/api/workflows/editorial',
      headers: { 'if-match': '"stale"' },
      payload: { description: 'changed' },
    });
    expect(stale.statusCode).toBe(409);
    const updated = await site.request({
      method: 'PATCH',
      url: '/api/workflows/editorial',
      headers: { 'if-match': etag },
      payload: { description: 'changed' },
    });
    expect(updated.statusCode, updated.body).toBe(200);

    const typeDelete = await site.request({ method: 'DELETE', url: '/api/types/post?cascade=1' });
    expect(typeDelete.statusCode).toBe(409);
    expect(typeDelete.json().holders).toContainEqual(
      expect.objectContaining({ kind: 'workflow', id: 'editorial' }),
    );

    expect((await move(as.editor, HELLO, { to: 'review' })).statusCode).toBe(200);
    const held = await site.request({ method: 'DELETE', url: '/api/workflows/editorial' });
    expect(held.statusCode).toBe(409);
    expect(held.json()).toMatchObject({ code: 'in_use', holders: [{ kind: 'item', id: HELLO }] });
    expect((await move(as.admin, HELLO, { to: 'draft', comment: 'not yet' })).statusCode).toBe(200);
    expect((await site.request({ method: 'DELETE', url: '/api/workflows/editorial' })).statusCode).toBe(204);
    expect((await stateOf(HELLO)).workflow).toBe('default');
  });

  it('moves an item through review: refuses roles, missing comments and moves not from its state', async () => {
    const liveEvents: string[] = [];
    site.platform.app.events.bus.on((event) => {
      if (event.type === 'item.published' || event.type === 'item.unpublished') {
        liveEvents.push(`${event.type} ${(event.data as { id: string }).id}`);
      }
    });
    expect(
      (await site.request({ method: 'POST', url: '/api/workflows', payload: EDITORIAL })).statusCode,
    ).toBe(201);
    expect(await stateOf(HELLO, as.editor)).toMatchObject({
      workflow: 'editorial',
      state: 'draft',
      next: ['review'],
    });

    // Not from the current state: 409, nothing changes.
    const skip = await move(as.publisher, HELLO, { to: 'published' });
    expect(skip.statusCode).toBe(409);
    expect(skip.json()).toMatchObject({ code: 'workflow_transition_invalid', state: 'draft' });
    // Publish is a workflow move too: the shortcut and the bulk publish are refused from draft.
    const shortcut = await site.request({
      method: 'POST',
      url: `/api/content/post/${HELLO}/publish`,
      headers: as.publisher,
    });
    expect(shortcut.statusCode).toBe(409);
    expect(shortcut.json().code).toBe('workflow_transition_invalid');

    // A publisher may not submit (403); an editor may (200).
    const publisherSubmit = await move(as.publisher, HELLO, { transition: 'submit' });
    expect(publisherSubmit.statusCode).toBe(403);
    expect(publisherSubmit.json()).toMatchObject({
      code: 'workflow_transition_forbidden',
      roles: ['editor', 'admin'],
    });
    expect(publisherSubmit.json().error).toMatch(/role `publisher` may not move post:hello-world/);
    const submitted = await move(as.editor, HELLO, { transition: 'submit' });
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect(submitted.json()).toMatchObject({
      transition: { from: 'draft', to: 'review' },
      state: { state: 'review' },
    });

    // Rejecting needs a comment.
    const bare = await move(as.admin, HELLO, { transition: 'reject' });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().code).toBe('workflow_comment_required');
    expect((await move(as.admin, HELLO, { transition: 'reject', comment: '   ' })).statusCode).toBe(400);
    expect((await stateOf(HELLO)).state).toBe('review');

    // An editor cannot approve; an admin can.
    expect((await move(as.editor, HELLO, { to: 'approved' })).statusCode).toBe(403);
    expect((await move(as.admin, HELLO, { to: 'approved', comment: 'fine' })).statusCode).toBe(200);

    // Only a publisher may take it live: the editor is refused by the transition, the shortcut and the bulk publish.
    expect((await move(as.editor, HELLO, { to: 'published' })).statusCode).toBe(403);
    const editorShortcut = await site.request({
      method: 'POST',
      url: `/api/content/post/${HELLO}/publish`,
      headers: as.editor,
    });
    expect(editorShortcut.statusCode).toBe(403);
    expect(editorShortcut.json().code).toBe('workflow_transition_forbidden');
    const editorBulk = await site.request({
      method: 'POST',
      url: '/api/publish',
      headers: as.editor,
      payload: { ids: [HELLO, 'post:second-post'] },
    });
    expect(editorBulk.statusCode).toBe(403);
    const importPublish = await site.request({
      method: 'POST',
      url: '/api/import/json',
      headers: as.editor,
      payload: { typeName: 'post', records: [{ title: 'Imported' }], publish: 'prod' },
    });
    expect(importPublish.statusCode).toBe(409);
    expect((await site.request({ method: 'GET', url: '/api/content/post/post:imported' })).statusCode).toBe(
      404,
    );
    const stub = await servedProdPage();
    expect(stub.body).not.toContain('<h1>Hello world</h1>');
    expect((await stateOf(HELLO)).live).toBe(false);

    // The publisher's move into published puts the head live: the prod build serves the page.
    const live = await move(as.publisher, HELLO, { to: 'published', comment: 'ship it' });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json().state).toMatchObject({ state: 'published', live: true, publishedEnvs: ['prod'] });
    const item = await site.request({ method: 'GET', url: `/api/content/post/${HELLO}` });
    expect(item.json()).toMatchObject({ status: 'published', publishedEnvs: ['prod'] });
    const served = await servedProdPage();
    expect(served.statusCode).toBe(200);
    expect(served.body).toContain('<h1>Hello world</h1>');
    // The move into published is a publish for the event stream (webhooks, notifications) too.
    await site.platform.app.events.bus.drain();
    expect(liveEvents).toEqual([`item.published ${HELLO}`]);

    // Every move is audited and in the item's history (its state and its versions).
    const audit = await site.request({
      method: 'GET',
      url: `/api/audit?action=workflow.transition&target=${HELLO}&order=asc`,
    });
    expect(audit.statusCode, audit.body).toBe(200);
    const entries = audit.json().items;
    expect(
      entries.map((entry: { data: { from: string; to: string } }) => `${entry.data.from}>${entry.data.to}`),
    ).toEqual(['draft>review', 'review>approved', 'approved>published']);
    expect(entries[2].data).toMatchObject({
      comment: 'ship it',
      role: 'publisher',
      env: 'env:prod',
      workflow: 'editorial',
    });
    const history = (await stateOf(HELLO)).history;
    expect(history.map((entry: { to: string }) => entry.to)).toEqual(['published', 'approved', 'review']);
    const versions = await site.request({ method: 'GET', url: `/api/content/post/${HELLO}/versions` });
    expect(versions.json()[0].transitions).toMatchObject([
      { from: 'draft', to: 'review', transition: 'submit' },
      { from: 'review', to: 'approved', comment: 'fine' },
      { from: 'approved', to: 'published', comment: 'ship it', transition: 'publish' },
    ]);

    // Leaving published takes the item down everywhere.
    const retracted = await move(as.admin, HELLO, { transition: 'retract' });
    expect(retracted.statusCode, retracted.body).toBe(200);
    expect(retracted.json().state).toMatchObject({ state: 'draft', live: false, publishedEnvs: [] });
    await site.platform.app.events.bus.drain();
    expect(liveEvents).toEqual([`item.published ${HELLO}`, `item.unpublished ${HELLO}`]);
  });

  it('answers 404 for an unknown item and refuses viewers', async () => {
    expect((await site.request({ method: 'GET', url: '/api/workflows/post:nope/state' })).statusCode).toBe(
      404,
    );
    expect((await move({}, 'post:nope', { to: 'published' })).statusCode).toBe(404);
    expect((await move(as.viewer, HELLO, { to: 'published' })).statusCode).toBe(403);
    expect((await move({}, HELLO, {})).statusCode).toBe(400);
  });

  it('is described in the OpenAPI document', async () => {
    const document = (await site.platform.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const path of [
      '/api/workflows',
      '/api/workflows/{name}',
      '/api/workflows/{vvId}/state',
      '/api/workflows/{vvId}/transition',
    ]) {
      expect(document.paths[path], path).toBeDefined();
    }
    expect(document.components.schemas.WorkflowTransitionBody).toBeDefined();
  });
});
