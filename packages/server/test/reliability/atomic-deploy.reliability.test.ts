import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOk, createBlogSite, probeRandom, type ServerProcess, scaled, startServer } from './harness';

/**
 * Atomic deploys under readers: readers fetch the pages of /sites/<slug>/dev/ without pause
 * while builds (each after every post changed) and rollbacks switch the live version. Every
 * read must answer 200 with a whole file of one version: a page carries its generation at its
 * top and at its bottom (with ~20 KB between), the home page links every post. Never a missing
 * or a mixed file. Versions are pruned as the builds go (a retention of 3), so most builds
 * recycle a pruned version's folder (directory target).
 */

const POSTS = 12;
const BUILDS = scaled(6, 32);
const ROLLBACK_EVERY = 3;
const READERS = 3;
const { random, seed } = probeRandom('atomic deploy under readers');

let server: ServerProcess;
let site: { id: string; slug: string };

const titles = Array.from({ length: POSTS }, (_, i) => `p${String(i).padStart(2, '0')}`);

// A small retention: old versions are pruned after each build and the newest pruned one is
// recycled as the next build's folder, so readers also read while recycled folders go live.
const RETENTION = 3;

beforeAll(async () => {
  server = await startServer({ CMS_BUILD_RETENTION: String(RETENTION) });
  site = await createBlogSite(server, {
    slug: 'atomic',
    postTemplate:
      '<!--gen:{{ item.body }}--><h1>{{ item.title }}</h1>{% for i in (1..2000) %}{{ item.body }} {% endfor %}<!--/gen:{{ item.body }}-->',
    homeTemplate:
      "{% list 'post' sort: 'title' as posts %}<!--n:{{ posts.size }}-->{% for p in posts %}<a href=\"{{ p.url }}\">{{ p.title }}</a>{% endfor %}<!--end-->",
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** Sets every post's body to generation `g` (one import: new items, then updates). */
async function writeGeneration(g: number): Promise<void> {
  await apiOk(server, 'POST', '/api/import/json', {
    site: site.id,
    expected: 200,
    body: { typeName: 'post', records: titles.map((title) => ({ title, body: `g${g}` })) },
  });
}

async function build(): Promise<string> {
  const result = await apiOk<{ ok: boolean; buildId: string }>(server, 'POST', '/api/build?env=dev', {
    site: site.id,
    expected: 200,
  });
  expect(result.ok).toBe(true);
  return result.buildId;
}

describe(`atomic deploys under readers (${BUILDS} builds, a rollback every ${ROLLBACK_EVERY}, seed ${seed})`, () => {
  it('never serves a missing or a mixed file while builds and rollbacks switch', async () => {
    await writeGeneration(0);
    const builds = [await build()];
    const problems: string[] = [];
    let reads = 0;
    const seen = new Set<string>();
    let running = true;
    const base = `${server.url}/sites/${site.slug}/dev`;
    const reader = async () => {
      while (running) {
        const pick = Math.floor(random() * (POSTS + 1));
        const path = pick === POSTS ? '/' : `/posts/${titles[pick]}/`;
        const response = await fetch(`${base}${path}`);
        const text = await response.text();
        reads += 1;
        if (response.status !== 200) {
          problems.push(`${path}: ${response.status}`);
          continue;
        }
        if (path === '/') {
          const links = text.match(/<a href=/g)?.length ?? 0;
          if (!text.startsWith(`<!--n:${POSTS}-->`) || links !== POSTS || !text.endsWith('<!--end-->'))
            problems.push(`/: ${links} links, ${text.length} bytes`);
        } else {
          const top = /^<!--gen:(g\d+)-->/.exec(text)?.[1];
          const bottom = /<!--\/gen:(g\d+)-->\s*$/.exec(text)?.[1];
          const body = text.match(/\bg\d+ /g) ?? [];
          if (!top || top !== bottom || body.length !== 2000 || body.some((word) => word !== `${top} `))
            problems.push(
              `${path}: top ${top}, bottom ${bottom}, ${body.length} words, ${text.length} bytes`,
            );
          else seen.add(top);
        }
      }
    };
    const readers = Array.from({ length: READERS }, reader);
    let rollbacks = 0;
    try {
      for (let g = 1; g <= BUILDS; g++) {
        await writeGeneration(g);
        builds.push(await build());
        if (g % ROLLBACK_EVERY === 0) {
          // the build before the live one: kept (the newest RETENTION are never pruned) now and
          // after the next build, so no reader still reading it when it was live meets its recycling
          const target = builds[builds.length - 2] as string;
          await apiOk(server, 'POST', `/api/build/rollback/${target}`, { site: site.id, expected: 200 });
          rollbacks += 1;
        }
      }
    } finally {
      running = false;
      await Promise.all(readers);
    }
    console.info(
      `[atomic deploy] ${reads} reads during ${BUILDS} builds and ${rollbacks} rollbacks: ${seen.size} versions seen, ${problems.length} problems`,
    );
    expect(problems.slice(0, 20)).toEqual([]);
    // The readers saw the versions change under them (else the probe proved nothing).
    expect(seen.size).toBeGreaterThan(2);
    expect(reads).toBeGreaterThan(BUILDS * 10);
  });
});
