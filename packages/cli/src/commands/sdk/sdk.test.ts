import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-sdk-');
const TYPES = `export type ContentTypes = {
  post: { fields: PostFields; input: PostInput; relationships: PostRelationships };
};
`;
const CLIENT = "import type { ContentTypes } from './types.js';\n";

describe('cms sdk generate', () => {
  it('writes types.d.ts and client.ts of the site into --out', async () => {
    const server = await t.serve({
      'GET /api/sdk/types.d.ts': () => ({ body: TYPES }),
      'GET /api/sdk/client.ts': () => ({ body: CLIENT }),
    });
    const result = await t.cli(['sdk', 'generate', '--out', 'src/trellis']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Wrote the typed client of site:blog (1 content type(s))');
    expect(await readFile(join(t.dir, 'src/trellis/types.d.ts'), 'utf8')).toBe(TYPES);
    expect(await readFile(join(t.dir, 'src/trellis/client.ts'), 'utf8')).toBe(CLIENT);
    expect(server.hits('GET /api/sdk/types.d.ts')[0]?.headers['x-site-id']).toBe('site:blog');
  });
});
