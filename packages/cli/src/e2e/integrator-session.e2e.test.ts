import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURE, SDK_DIST, type ServerProcess, startServer } from './harness';

type Sdk = typeof import('@trelliscms/sdk');

/**
 * An integrator's session through the built SDK (`packages/sdk/dist`) against the built
 * server as a child process. Steps run in order and share state.
 */
describe('integrator session through the SDK', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  let sdk: Sdk;
  let client: ReturnType<Sdk['createClient']>;
  let site: ReturnType<ReturnType<Sdk['createClient']>['site']>;
  let data: {
    types: Parameters<typeof site.types.apply>[0][];
    records: Record<string, Record<string, unknown>[]>;
    edges: { from: string; edge: string; to: string }[];
  };

  beforeAll(async () => {
    assertBuilt();
    // A small import body limit makes the real server answer 413 to large import calls.
    server = await startServer({ IMPORT_BODY_LIMIT_BYTES: '100000' });
    sdk = (await import(SDK_DIST)) as Sdk;
    client = sdk.createClient({ baseUrl: server.url, apiKey: server.ownerKey });
    data = JSON.parse(await readFile(FIXTURE, 'utf8'));
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('reads health without a credential', async () => {
    const anonymous = sdk.createClient({ baseUrl: server.url });
    expect((await anonymous.health.get()).status).toBe('ok');
    const detail = await anonymous.health.detail();
    expect(detail.engine.reachable).toBe(true);
  });

  it('creates a site and scopes a client to it', async () => {
    const created = await client.sites.create({ name: 'Atlas', slug: 'atlas', starterKit: 'none' });
    expect(created.id).toBe('site:atlas');
    site = client.site(created.id);
    expect((await client.sites.get('site:atlas')).graphName).toBe(created.graphName);
    const mine = await client.access.mySites();
    expect(mine.map((entry) => entry.siteId)).toContain('site:atlas');
  });

  it('raises a typed ApiError for a missing type', async () => {
    const error = await site.types.get('nope').catch((e: unknown) => e);
    expect(sdk.isApiError(error)).toBe(true);
    expect(error).toMatchObject({ status: 404, code: expect.any(String) });
  });

  it('applies types idempotently', async () => {
    for (const type of data.types) expect((await site.types.apply(type)).action).toBe('created');
    for (const type of data.types) expect((await site.types.apply(type)).action).toBe('updated');
    const listed = await site.types.list();
    expect(listed.map((type) => type.name).sort()).toEqual(['country', 'division', 'region']);
  });

  it('imports thousands of records, splitting calls after a 413 and reporting progress', async () => {
    await site.import.records({ typeName: 'region', records: data.records.region! });
    await site.import.records({ typeName: 'country', records: data.records.country! });
    const progress: number[] = [];
    // A division requires its `country` relationship: send the explicit form.
    const divisions = data.records.division!.map((fields) => ({
      fields,
      relationships: { country: `country:${fields.countryCode}` },
    }));
    // A call of 2000 divisions is larger than the server's 100 kB body limit: the server
    // answers 413 and the helper sends the same records again in smaller calls.
    const result = await site.import.records({
      typeName: 'division',
      records: divisions,
      callSize: 2000,
      onProgress: (p) => progress.push(p.done),
    });
    expect(result).toMatchObject({ totalRecords: divisions.length, created: divisions.length, failed: 0 });
    expect(result.calls).toBeGreaterThan(Math.ceil(divisions.length / 2000));
    expect(progress.at(-1)).toBe(divisions.length);
  });

  it('imports the edges in several calls', async () => {
    const result = await site.import.allEdges({ edges: data.edges, callSize: 500 });
    expect(result.totalEdges).toBe(data.edges.length);
    expect(result).toMatchObject({ failed: 0, mismatch: 0, merged: data.edges.length });
    expect(result.calls).toBe(Math.ceil(data.edges.length / 500));
  });

  it('pages through a type with the async iterator', async () => {
    const ids: string[] = [];
    for await (const item of site.content.iterate('country', { pageSize: 50 })) ids.push(item.id);
    expect(ids).toHaveLength(data.records.country!.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('creates, updates, publishes and deletes an item', async () => {
    const created = await site.content.create('region', { slug: 'atlantis', name: 'Atlantis' });
    expect(created.id).toBe('region:atlantis');
    const updated = await site.content.update('region', created.id, { name: 'Atlantis (lost)' });
    expect(updated.fields.name).toBe('Atlantis (lost)');
    expect((await site.content.publish('region', created.id, { env: 'dev' })).status).toBe('published');
    await site.content.delete('region', created.id);
    await expect(site.content.get('region', created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('writes a template and builds asynchronously to the end', async () => {
    await site.templates.create({
      name: 'country',
      boundType: 'country',
      content: '<h1>{{ item.name }}</h1>',
    });
    const updated = await site.templates.update('country', {
      content: '<h1>{{ item.name }}</h1><p>{{ item.capital }}</p>',
    });
    expect(updated.version).toBe(2);
    const statuses: string[] = [];
    const final = await site.build.runAndWait(
      { env: 'dev', mode: 'full' },
      { pollIntervalMs: 200, onStatus: (status) => statuses.push(status.status) },
    );
    expect(final.status).toBe('ok');
    expect(statuses.at(-1)).toBe('ok');
    expect(final.artifacts).toBeGreaterThan(0);
    const page = await fetch(`${server.url}/sites/atlas/dev/countries/fr/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>France</h1>');
  });

  it('exports the site as one snapshot', async () => {
    const snapshot = await site.export.snapshot();
    expect(snapshot.templates.map((template) => template.name)).toContain('country');
    // The fixture lists a few triples twice; edges are merged, so each is stored once.
    const distinct = new Set(data.edges.map((edge) => `${edge.from} ${edge.edge} ${edge.to}`));
    expect(snapshot.edges.length).toBe(distinct.size);
  });

  it('bundles an item version into a release, approves it and deploys it', async () => {
    const environments = await site.releases.environments();
    expect(environments.map((environment) => environment.id)).toEqual(
      expect.arrayContaining(['env:dev', 'env:prod']),
    );
    const [head] = await site.content.versions('country', 'country:fr');
    expect(head).toBeDefined();
    const release = await site.releases.create({
      name: 'france-update',
      description: 'France, as imported',
      includes: [
        {
          kind: 'content',
          versionableId: 'country:fr',
          version: head!.version,
          hash: head!.hash,
          at: head!.at,
        },
      ],
    });
    expect(release).toMatchObject({ id: 'release:france-update', state: 'draft' });
    await site.releases.transition(release.id, { state: 'pending' });
    const approved = await site.releases.transition(release.id, { state: 'approved' });
    expect(approved.state).toBe('approved');
    const deployment = await site.releases.deploy(release.id, {
      environmentId: 'env:prod',
      skipReviewGate: true,
    });
    expect(deployment).toMatchObject({ releaseId: release.id, environmentId: 'env:prod' });
    const recent = await site.releases.deployments({ envId: 'env:prod' });
    expect(recent.map((entry) => entry.id)).toContain(deployment.id);
  });

  it('uploads, lists and deletes a media file', async () => {
    // A 1x1 transparent PNG.
    const png = Uint8Array.from(
      atob(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      ),
      (char) => char.charCodeAt(0),
    );
    const asset = await site.media.upload(new Blob([png], { type: 'image/png' }), 'pixel.png');
    expect(asset).toMatchObject({ filename: 'pixel.png', mimetype: 'image/png', width: 1, height: 1 });
    expect(await site.media.count({ q: 'pixel' })).toBe(1);
    const file = await fetch(new URL(asset.url, server.url));
    expect(file.status).toBe(200);
    await site.media.delete(asset.id);
    expect(await site.media.list()).toEqual([]);
  });

  it('mints a viewer key that can read but not write', async () => {
    const key = await site.apiKeys.create({ name: 'reader', role: 'viewer' });
    const reader = sdk.createClient({ baseUrl: server.url, apiKey: key.secret }).site('site:atlas');
    expect((await reader.types.list()).length).toBe(3);
    const error = await reader.content.create('region', { slug: 'x', name: 'X' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 403 });
    await site.apiKeys.revoke(key.id);
    await expect(reader.types.list()).rejects.toMatchObject({ status: 401 });
  });

  it('verifies the audit chain of the site', async () => {
    const verdict = await site.audit.verify();
    expect(verdict.status).toBe('ok');
  });
});
