import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderCliReference } from './cli-reference';

const committed = fileURLToPath(new URL('../../../../docs/cli.md', import.meta.url));

describe('docs/cli.md', () => {
  it('is what the generator gives for the current commands (run pnpm --filter @trelliscms/cli docs)', async () => {
    expect(await readFile(committed, 'utf8')).toBe(renderCliReference());
  });

  it('documents every command with an example', () => {
    const reference = renderCliReference();
    for (const name of [
      'cms profiles use',
      'cms push',
      'cms pull',
      'cms serve',
      'cms builds history',
      'cms media upload',
    ]) {
      expect(reference).toContain(`### ${name}\n`);
    }
    const sections = reference.split('\n### ').slice(1);
    for (const text of sections) expect(text, text.split('\n')[0]).toMatch(/Examples?:\n\n```sh\n\$ cms /);
  });
});
