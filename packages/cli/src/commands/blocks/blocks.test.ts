import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-blocks-');
const answer = (blocks: { id: string; type: string; data: object }[]) => ({
  ok: true,
  id: 'post:hello',
  block: blocks[0] ?? { id: 'b1', type: 'quote', data: {} },
  body: { time: 1, blocks, version: '2.28.0' },
  version: 4,
});

describe('cms blocks', () => {
  it('adds a block with its fields, references and order, and removes one', async () => {
    const block = { id: 'b1', type: 'quote', data: { text: 'Less is more' } };
    const server = await t.serve({
      'POST /api/content/post/post%3Ahello/blocks': () => ({ status: 201, body: answer([block]) }),
      'DELETE /api/content/post/post%3Ahello/blocks/b1': () => ({ body: { ...answer([]), block } }),
    });
    const added = await t.cli([
      'blocks',
      'add',
      'post',
      'hello',
      'quote',
      '--data',
      '{"text": "Less is more"}',
      '--ref',
      'author:ada',
      '--order',
      '0',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe('Added quote block b1 to post:hello (1 block(s), version 4).\n');
    expect(server.hits('POST /api/content/post/post%3Ahello/blocks')[0]?.body).toEqual({
      blockType: 'quote',
      fields: { text: 'Less is more' },
      references: ['author:ada'],
      order: 0,
    });
    const removed = await t.cli(['blocks', 'rm', 'post', 'hello', 'b1']);
    expect(removed.stdout).toBe('Removed block b1 from post:hello (0 block(s) left).\n');
  });

  it('refuses --data that is not a JSON object, exit 2', async () => {
    await t.serve({});
    const result = await t.cli(['blocks', 'add', 'post', 'hello', 'quote', '--data', '[1]']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--data must be a JSON object');
  });
});
