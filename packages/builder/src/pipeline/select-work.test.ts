import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { tempDir } from '../../test/temp-dir';
import { build } from '../build';
import { createFolderTarget } from '../deploy/folder-target';
import type { Snapshot } from '../snapshot/types';
import { detectChanges } from './detect-changes';
import { load } from './load';
import { type BuildOptions, settingsOf } from './options';
import { plan } from './plan';
import { type Selection, type SelectReason, selectWork } from './select-work';

/** A site built once in full, and the selection stage of a next build of an edited snapshot. */
async function builtSite() {
  const target = createFolderTarget({ dir: tempDir('select') });
  const first = await build({ source: readFixtureSnapshot('blog'), mode: 'full', target, workers: 0 });
  expect(first.ok).toBe(true);
  const select = async (snapshot: Snapshot, options: Partial<BuildOptions> = {}): Promise<Selection> => {
    const settings = settingsOf({ source: snapshot, target, mode: 'incremental', ...options });
    const content = await load({ source: snapshot, env: settings.env, mediaBaseUrl: settings.mediaBaseUrl });
    const changes = await detectChanges(settings, content);
    const planned = plan({ env: settings.env, content, changes });
    return selectWork({ settings, content, changes, planned });
  };
  return { first, select };
}

/** The reason of each selected page, by key. */
function reasons(selection: Selection): Record<string, SelectReason> {
  return Object.fromEntries(selection.work.map((page) => [page.artifact.key, page.reason]));
}

describe('select work', () => {
  it('selects nothing when nothing changed, and carries every page', async () => {
    const { first, select } = await builtSite();
    const selection = await select(readFixtureSnapshot('blog'));
    expect(selection.mode).toBe('incremental');
    expect(selection.work).toEqual([]);
    if (selection.mode !== 'incremental') return;
    expect(selection.carried.length).toBe(first.rendered);
  });

  it('gives each page the reason it renders for', async () => {
    const { select } = await builtSite();
    const snapshot = readFixtureSnapshot('blog');
    // a changed item: its page and the pages that list it read it
    const post = snapshot.items.find((item) => item.id === 'post:static-speed');
    if (!post) throw new Error('fixture changed');
    post.fields = { ...post.fields, title: 'Static Speed, revised' };
    // a changed template: the pages rendered with it
    const tagTemplate = snapshot.templates.find((template) => template.name === 'tag');
    if (!tagTemplate) throw new Error('fixture changed');
    tagTemplate.content += '\n<!-- revised -->';
    // a new item: a new page
    snapshot.items.push({
      id: 'post:brand-new',
      type: 'post',
      fields: { title: 'Brand New', body: 'New.', date: '2025-02-01' },
      status: 'published',
      publishedEnvs: ['prod'],
    });
    const got = reasons(await select(snapshot));
    expect(got['item:post:static-speed']).toBe('deps-changed');
    expect(got['item:post:brand-new']).toBe('new');
    expect(got['item:tag:web']).toBe('template-changed');
    expect(got['item:tag:graphs']).toBe('template-changed');
    // a page that read none of it is carried
    expect(got['item:page:about']).toBeUndefined();
    for (const reason of Object.values(got)) expect(reason).not.toBe('full');
  });

  it('renders every page for the reason full when asked, or when the previous build is not compatible', async () => {
    const { select } = await builtSite();
    const full = await select(readFixtureSnapshot('blog'), { mode: 'full' });
    expect(full).toMatchObject({ mode: 'full', why: 'asked' });
    expect(full.work.length).toBeGreaterThan(5);
    expect(new Set(full.work.map((page) => page.reason))).toEqual(new Set(['full']));
    const retyped = readFixtureSnapshot('blog');
    retyped.types = retyped.types.map((type) => ({ ...type, label: `${type.label ?? type.name}!` }));
    expect(await select(retyped)).toMatchObject({ mode: 'full', why: 'no-compatible-previous' });
    const validate = await select(readFixtureSnapshot('blog'), { mode: 'validate' });
    expect(validate).toMatchObject({ mode: 'validate', why: 'asked' });
  });
});
