import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

const run = promisify(execFile);
const SDK_DIR = resolve(import.meta.dirname, '../../../../sdk');
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript')), 'tsc.js');

/** A type with a field of every type (docs/content-types.md), an enum and relationships. */
const POST = {
  name: 'post',
  label: 'Blog post',
  nodeLabel: 'Post',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'title', type: 'string', required: true },
    { name: 'summary', type: 'text' },
    { name: 'body', type: 'markdown' },
    { name: 'rich', type: 'richtext' },
    { name: 'year', type: 'number' },
    { name: 'featured', type: 'boolean' },
    { name: 'publishedOn', type: 'date' },
    { name: 'updatedOn', type: 'datetime' },
    { name: 'category', type: 'enum', values: ['news', 'essay'], default: 'news', required: true },
    { name: 'tags', type: 'stringlist' },
    { name: 'cover', type: 'image' },
    { name: 'series', type: 'reference', target: 'author' },
  ],
  relationships: [
    { name: 'writtenBy', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one', required: true },
    { name: 'related', edgeLabel: 'RELATED_TO', target: 'post', kind: 'many-to-many' },
  ],
};
const AUTHOR = {
  name: 'author',
  label: 'Author',
  nodeLabel: 'Author',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'name', type: 'string', required: true },
  ],
};
const NOTE = {
  name: 'release-note',
  label: 'Release note',
  nodeLabel: 'ReleaseNote',
  keyField: 'slug',
  fields: [{ name: 'slug', type: 'string', required: true }],
};

/** Uses the generated client as an integrator would: must compile. */
const GOOD = `import { createClient } from '@trelliscms/sdk';
import { createSiteClient, type PostFields, type PostId, SITE_ID } from './client.js';

const site = createSiteClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'key' });

export async function titles(): Promise<string[]> {
  const posts = await site.content.list('post', { limit: 10 });
  const first = posts[0];
  if (first) {
    const category: 'news' | 'essay' = first.fields.category;
    const year: number | null | undefined = first.fields.year;
    const tags: string[] | null | undefined = first.fields.tags;
    const author: \`author:\${string}\` | undefined = first.relationships?.writtenBy;
    const related: Array<\`post:\${string}\`> | undefined = first.relationships?.related;
    const fields: PostFields = first.fields;
    void [category, year, tags, author, related, fields];
  }
  const created = await site.content.create('post', {
    fields: { slug: 'hello', title: 'Hello', publishedOn: '2026-01-31', cover: 'asset:abc' },
    relationships: { writtenBy: 'author:ada' },
  });
  const id: PostId = 'post:hello';
  await site.content.update('post', id, { fields: { featured: true } });
  for await (const note of site.content.iterate('release-note')) void note.fields.slug.length;
  void SITE_ID;
  // the untyped client is unchanged: any type name, untyped fields
  const untyped = await createClient({ baseUrl: 'http://127.0.0.1:1' }).site('site:x').content.list('anything');
  void untyped[0]?.fields.whatever;
  return [created.fields.title, ...posts.map((post) => post.fields.title.toUpperCase())];
}
`;

/** Each line is a mistake the generated types must catch. */
const BAD = `import { createSiteClient } from './client.js';

const site = createSiteClient({ baseUrl: 'http://127.0.0.1:1' });
export async function wrong(): Promise<void> {
  const posts = await site.content.list('post');
  void posts[0]?.fields.titel; // BAD-FIELD
  await site.content.list('postt'); // BAD-TYPE
  await site.content.create('post', { fields: { slug: 'x', title: 'x', category: 'gossip' } }); // BAD-ENUM
  await site.content.create('post', { fields: { slug: 'x' } }); // BAD-REQUIRED
  await site.content.create('author', { fields: { slug: 'x', name: 'x' }, relationships: { writtenBy: 'author:x' } }); // BAD-RELATIONSHIP
}
`;

describe('/api/sdk: generated TypeScript', () => {
  let site: ContentTestSite;
  let project: string;
  beforeAll(async () => {
    site = await createContentTestSite({ slug: 'typed' });
    for (const type of [AUTHOR, POST, NOTE]) await site.createType(type);
    project = await mkdtemp(join(tmpdir(), 'trellis-sdk-gen-'));
  });
  afterAll(async () => {
    await site?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('serves types.d.ts and client.ts that tsc accepts for good use and rejects for wrong field names', async () => {
    expect(existsSync(join(SDK_DIR, 'dist/index.d.ts')), 'build @trelliscms/sdk first (pnpm build)').toBe(
      true,
    );
    const types = await site.request({ method: 'GET', url: '/api/sdk/types.d.ts' });
    expect(types.statusCode, types.body).toBe(200);
    expect(types.headers['content-type']).toMatch(/^text\/typescript/);
    expect(types.body).toContain('export interface PostFields {');
    expect(types.body).toContain('  title: string;');
    expect(types.body).toContain('  category: "news" | "essay";');
    expect(types.body).toContain(`  series?: \`author:\${string}\` | null;`);
    expect(types.body).toContain(`  writtenBy: \`author:\${string}\`;`);
    expect(types.body).toContain(`  related?: Array<\`post:\${string}\`>;`);
    expect(types.body).toContain('"release-note": { fields: ReleaseNoteFields;');
    const client = await site.request({ method: 'GET', url: '/api/sdk/client.ts' });
    expect(client.statusCode).toBe(200);
    expect(client.body).toContain(`export const SITE_ID = "${site.siteId}";`);

    await writeFile(join(project, 'types.d.ts'), types.body);
    // The same text as a module, so its own body is type-checked too (skipLibCheck spares .d.ts files).
    await writeFile(join(project, 'types-body.ts'), types.body);
    await writeFile(join(project, 'client.ts'), client.body);
    await writeFile(join(project, 'good.ts'), GOOD);
    await writeFile(join(project, 'bad.ts'), BAD);
    await mkdir(join(project, 'node_modules/@trelliscms'), { recursive: true });
    await symlink(SDK_DIR, join(project, 'node_modules/@trelliscms/sdk'), 'dir');
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          verbatimModuleSyntax: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['types-body.ts', 'client.ts', 'good.ts', 'bad.ts'],
      }),
    );
    const result = await run(process.execPath, [TSC, '-p', project, '--pretty', 'false'], {
      cwd: project,
    }).then(
      () => ({ code: 0, out: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    );
    const errors = result.out.split('\n').filter((line) => /error TS/.test(line));
    // every error is in bad.ts, and each of its mistakes is one
    expect(result.code).not.toBe(0);
    expect(
      errors.filter((line) => !line.startsWith('bad.ts')),
      result.out,
    ).toEqual([]);
    const badLines = BAD.split('\n');
    const lineOf = (marker: string) => badLines.findIndex((line) => line.includes(marker)) + 1;
    for (const marker of ['BAD-FIELD', 'BAD-TYPE', 'BAD-ENUM', 'BAD-REQUIRED', 'BAD-RELATIONSHIP']) {
      expect(
        errors.some((line) => line.startsWith(`bad.ts(${lineOf(marker)},`)),
        `${marker}:\n${result.out}`,
      ).toBe(true);
    }
    expect(result.out).toMatch(/titel/);
  }, 180_000);
});
