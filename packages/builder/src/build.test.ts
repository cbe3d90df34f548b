import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

describe('build', () => {
  it('renders pages, listings, sitemap and search index of the blog fixture', async () => {
    fixture = loadFixture('blog');
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    const post = await fixture.readFile('/blog/hello-world/');
    console.log(post);
    console.log(result.files.map((f) => f.file));
  });
});
