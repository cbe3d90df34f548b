/**
 * Release timing benchmark, over HTTP against the BUILT server (`dist/main.js`) as its own
 * process, one process per site shape, all in one run:
 * 1. deploy-to-live: POST /api/releases/{id}/deploy (validFrom now) of a release changing 1
 *    item and one changing 50: time to the answer, and until GET /sites/<slug>/prod/<path>
 *    serves the new title;
 * 2. rollback: POST /api/releases/deployments/{id}/rollback, back and forth: time to the
 *    answer and until the page serves the older title; no build may be recorded;
 * 3. scheduled switch: a deployment with validFrom a few seconds ahead, built ahead by the
 *    scheduler; the page is polled every ~20 ms: lateness = first time the new title is
 *    served − validFrom;
 * 4. drip: 100 releases (one distinct item each) drip-scheduled 1 s apart, the window
 *    starting once they can all have been built ahead: per-slot lateness and order.
 * Records the machine's load before and after each shape and writes the "Releases" section
 * of docs/benchmarks.md (between the `bench:releases` markers).
 *
 * Run: pnpm build && pnpm --filter @trelliscms/server bench   (BENCH_ONLY=releases for this one)
 * Takes about 8 minutes (each drip waits for its builds ahead, then runs 100 s).
 * Env: BENCH_RELEASE_SIZES (100,1000,10000 posts), BENCH_RELEASE_SAMPLES (5 scheduled switches),
 *      BENCH_RELEASE_DEPLOYS (3 deploys of each size), BENCH_RELEASE_DRIP (the sizes that run the
 *      drip: 100,1000; `all`; 0 skips it), BENCH_RELEASE_DRIP_COUNT (100),
 *      BENCH_RELEASE_WRITE (1; 0 leaves docs/benchmarks.md alone)
 */
import { cpus, loadavg } from 'node:os';
import { benchmarksDoc, cpuTicks, stealBetween, writeDocSection } from './doc-section';
import { type BuiltServer, type LogLine, startBuiltServer } from './server-process';

const SIZES = (process.env.BENCH_RELEASE_SIZES ?? '100,1000,10000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const SWITCH_SAMPLES = Number(process.env.BENCH_RELEASE_SAMPLES ?? 5);
const DEPLOY_SAMPLES = Number(process.env.BENCH_RELEASE_DEPLOYS ?? 3);
const DRIP_SETTING = process.env.BENCH_RELEASE_DRIP ?? '100,1000';
const DRIP_COUNT = Number(process.env.BENCH_RELEASE_DRIP_COUNT ?? 100);
const WRITE_DOC = process.env.BENCH_RELEASE_WRITE !== '0';
const BIG_RELEASE = 50;
const ROLLBACKS = 4;
const PAGE_POLL_MS = 20;
const DRIP_SPACING_MS = 1000;
const CORES = cpus().length;
/** A shape is marked as measured on a busy machine when the 1-minute load before it starts is at least this. */
const BUSY_LOAD = CORES / 2;
/** The log lines of the server the benchmark reads (the rest are dropped). */
const KEPT_LOGS = new Set([
  'deployment live',
  'deployment prebuilt',
  'deployment prebuild failed',
  'prebuilt version is stale (what it stands on changed); building now',
  'deployment failed',
  'deployment rolled back',
  'prebuild failed',
]);

/** How long an API call shed with 503 (the server's load shedding) is sent again. */
const SHED_RETRY_MS = 120_000;
/** Answers shed with 503 `overloaded` during the run: API calls (sent again) and page polls. */
const shed = { api: 0, pages: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const slugOf = (i: number) => `p-${String(i).padStart(5, '0')}`;
const idOf = (i: number) => `post:${slugOf(i)}`;

function runDrip(size: number): boolean {
  if (DRIP_SETTING === '0') return false;
  if (DRIP_SETTING === 'all') return true;
  return DRIP_SETTING.split(',').some((part) => Number(part.trim()) === size);
}

/** median, p95 and max of some numbers (NaN when there are none). */
function stats(values: readonly number[]): { median: number; p95: number; max: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  if (sorted.length === 0) return { median: Number.NaN, p95: Number.NaN, max: Number.NaN, n: 0 };
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, p95: at(0.95) as number, max: sorted.at(-1) as number, n: sorted.length };
}

const ms = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const secs = (n: number) => (Number.isFinite(n) ? (n / 1000).toFixed(1) : '–');
const load = () => loadavg().map((n) => n.toFixed(1));

/** A site-scoped JSON client of the API. */
class Api {
  constructor(
    readonly base: string,
    private readonly key: string,
    public site: string | null = null,
  ) {}

  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: T; ms: number }> {
    const started = performance.now();
    for (;;) {
      const response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          ...(this.site ? { 'x-site-id': this.site } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      // Load shedding answers 503 before the route runs: sent again (and counted), timed from the first try.
      if (response.status === 503 && performance.now() - started < SHED_RETRY_MS) {
        shed.api += 1;
        await sleep(250);
        continue;
      }
      const took = performance.now() - started;
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
      return { status: response.status, json: (text ? JSON.parse(text) : null) as T, ms: took };
    }
  }
}

interface Deployment {
  id: string;
  status: string;
  validFrom: string;
  deployedAt: string | null;
  buildId: string | null;
  prebuiltBuildId: string | null;
  error: string | null;
  releaseId: string;
}

/** The figures of one site shape. */
interface ShapeResult {
  pages: number;
  importMs: number;
  fullBuildMs: number;
  deployOne: { answer: number[]; served: number[] };
  deployBig: { answer: number[]; served: number[] };
  rollback: { answer: number[]; served: number[]; buildRecorded: boolean };
  switches: Array<{
    lead: number;
    prebuildMs: number | null;
    prebuiltInTime: boolean;
    served: number | null;
    deployed: number | null;
    early: boolean;
    usedPrebuild: boolean | null;
    switchTookMs: number | null;
  }>;
  drip: DripResult | null;
  loadBefore: string[];
  loadAfter: string[];
  steal: string;
  /** Answers the server's load shedding gave (503) during this shape: API calls (sent again), page polls. */
  shed: { api: number; pages: number };
}

interface DripResult {
  count: number;
  setupMs: number;
  leadMs: number;
  prebuildAllMs: number | null;
  prebuiltAtWindow: number;
  deployedLate: number[];
  servedLate: number[];
  onSecond: number;
  deployedInOrder: boolean;
  servedInOrder: boolean;
  notDeployed: number;
  early: number;
  usedPrebuild: number;
  rebuiltAtSwitch: number;
  stale: number;
  switchTook: number[];
}

/** One site of `pages` posts on a running server, and what the benchmark does to it. */
class BenchSite {
  readonly api: Api;
  private cursor = 0;
  private titleSeq = 0;
  /** The title each item's live version has in prod. */
  readonly liveTitle = new Map<number, string>();
  private releaseSeq = 0;

  constructor(
    readonly server: BuiltServer,
    readonly pages: number,
    readonly slug: string,
  ) {
    this.api = new Api(server.base, server.ownerKey);
  }

  pageUrl(i: number): string {
    return `${this.server.base}/sites/${this.slug}/prod/posts/${slugOf(i)}/`;
  }

  /** Whether the served page of item `i` shows `title` now. */
  async shows(i: number, title: string): Promise<boolean> {
    const response = await fetch(this.pageUrl(i));
    const text = await response.text();
    if (response.status === 503) shed.pages += 1;
    return response.ok && text.includes(`<h1>${title}</h1>`);
  }

  /** Polls the page of item `i` every ~20 ms until it shows `title`: the client time it was first seen, or null. */
  async waitFor(i: number, title: string, timeoutMs: number): Promise<number | null> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.shows(i, title)) return Date.now();
      await sleep(PAGE_POLL_MS);
    }
    return null;
  }

  /** The next `count` items, round the site. */
  take(count: number): number[] {
    return Array.from({ length: count }, () => {
      const i = this.cursor % this.pages;
      this.cursor += 1;
      return i;
    });
  }

  newTitle(i: number): string {
    this.titleSeq += 1;
    return `Post ${i} edit ${this.titleSeq}`;
  }

  /** Edits the items (a new version each, with a new title) and makes an approved release of them. */
  async release(items: readonly number[]): Promise<{ id: string; titles: Map<number, string> }> {
    const titles = new Map<number, string>();
    const includes = [];
    for (const i of items) {
      const title = this.newTitle(i);
      const written = await this.api.call<{ version: number; hash: string }>(
        'PATCH',
        `/api/content/post/${idOf(i)}`,
        { title },
      );
      titles.set(i, title);
      includes.push({
        kind: 'content',
        versionableId: idOf(i),
        version: written.json.version,
        hash: written.json.hash,
      });
    }
    this.releaseSeq += 1;
    const name = `bench-${this.releaseSeq}`;
    await this.api.call('POST', '/api/releases', { name, includes });
    await this.api.call('POST', `/api/releases/release:${name}/transition`, { state: 'pending' });
    await this.api.call('POST', `/api/releases/release:${name}/transition`, { state: 'approved' });
    return { id: `release:${name}`, titles };
  }

  async deployment(id: string): Promise<Deployment> {
    return (await this.api.call<Deployment>('GET', `/api/releases/deployments/${id}`)).json;
  }

  async newestBuild(): Promise<string | null> {
    const history = await this.api.call<Array<{ buildId: string }>>('GET', '/api/build/history?limit=5');
    return history.json[0]?.buildId ?? null;
  }

  logsFor(deploymentId: string, msg: string): LogLine[] {
    return this.server.logs.filter((line) => line.deploymentId === deploymentId && line.msg === msg);
  }
}

async function setUp(
  server: BuiltServer,
  pages: number,
): Promise<{ site: BenchSite; importMs: number; fullBuildMs: number }> {
  const slug = `rel-${pages}`;
  const api = new Api(server.base, server.ownerKey);
  const created = await api.call<{ id: string }>('POST', '/api/sites', {
    name: `Release bench ${pages}`,
    slug,
    starterKit: 'none',
  });
  const site = new BenchSite(server, pages, slug);
  site.api.site = created.json.id;
  await site.api.call('POST', '/api/types', {
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true, unique: true },
      { name: 'title', type: 'string', required: true },
    ],
    routePattern: '/posts/{slug}/',
  });
  await site.api.call('POST', '/api/templates', {
    name: 'post',
    boundType: 'post',
    content: '<!doctype html><title>{{ item.title }}</title><h1>{{ item.title }}</h1>',
  });
  await site.api.call('POST', '/api/templates', {
    name: 'home',
    content:
      '<!doctype html><title>{{ site.name }}</title><h1>{{ site.name }}, page {{ pagination.page }} of {{ pagination.pages }}</h1><ul>{% for post in pagination.items %}<li><a href="{{ post.url }}">{{ post.title }}</a></li>{% endfor %}</ul>',
  });
  await site.api.call('POST', '/api/routes', {
    slug: 'home',
    path: '/',
    kind: 'listing',
    template: 'home',
    paginate: { type: 'post', size: 50, sort: 'slug' },
  });
  const records = Array.from({ length: pages }, (_, i) => ({ slug: slugOf(i), title: `Post ${i}` }));
  const imported = await site.api.call<{ created: number; published?: { count: number } }>(
    'POST',
    '/api/import/json',
    { typeName: 'post', records, batchSize: 500, publish: 'prod' },
  );
  if (imported.json.created !== pages || imported.json.published?.count !== pages) {
    throw new Error(`import: ${JSON.stringify(imported.json).slice(0, 300)}`);
  }
  for (let i = 0; i < pages; i++) site.liveTitle.set(i, `Post ${i}`);
  const built = await site.api.call<{ ok: boolean; error?: string }>('POST', '/api/build', {
    env: 'prod',
    mode: 'full',
  });
  if (!built.json.ok) throw new Error(`full build failed: ${built.json.error}`);
  const last = pages - 1;
  if (!(await site.shows(last, `Post ${last}`))) throw new Error('the built site does not serve the posts');
  const home = await fetch(`${server.base}/sites/${slug}/prod/`);
  if (!home.ok || !(await home.text()).includes(`Post 0</a>`))
    throw new Error('the home listing is not served');
  return { site, importMs: imported.ms, fullBuildMs: built.ms };
}

/** 1. Deploys due now, of 1 and of 50 items, alternating; returns the last two (for the rollbacks). */
async function deployNow(site: BenchSite, result: ShapeResult) {
  let last: Array<{
    deployment: Deployment;
    releaseId: string;
    items: number[];
    titles: Map<number, string>;
    before: Map<number, string>;
  }> = [];
  for (let sample = 0; sample < DEPLOY_SAMPLES; sample++) {
    for (const size of [1, Math.min(BIG_RELEASE, site.pages)]) {
      const items = site.take(size);
      const release = await site.release(items);
      const before = new Map(items.map((i) => [i, site.liveTitle.get(i) as string]));
      const checked = items.at(-1) as number;
      const started = Date.now();
      const answer = await site.api.call<Deployment>('POST', `/api/releases/${release.id}/deploy`, {
        environmentId: 'env:prod',
      });
      if (answer.json.status !== 'deployed') throw new Error(`deploy: ${JSON.stringify(answer.json)}`);
      const seen = await site.waitFor(checked, release.titles.get(checked) as string, 60_000);
      if (seen === null) throw new Error(`the page of ${idOf(checked)} never showed the deployed title`);
      for (const [i, title] of release.titles) site.liveTitle.set(i, title);
      const bucket = size === 1 ? result.deployOne : result.deployBig;
      bucket.answer.push(answer.ms);
      bucket.served.push(seen - started);
      last = [
        ...last,
        { deployment: answer.json, releaseId: release.id, items, titles: release.titles, before },
      ].slice(-2);
      console.error(
        `  deploy now, ${size} item(s): answer ${ms(answer.ms)} ms, served ${ms(seen - started)} ms`,
      );
    }
  }
  return last;
}

/** 2. Rolls the last deployment back to the release before it and forward again, `ROLLBACKS` times. */
async function rollbacks(site: BenchSite, result: ShapeResult, last: Awaited<ReturnType<typeof deployNow>>) {
  const [older, newer] = last;
  if (!older || !newer) return;
  const checked = newer.items.at(-1) as number;
  const newestBefore = await site.newestBuild();
  let current = newer.deployment.id;
  for (let n = 0; n < ROLLBACKS; n++) {
    const back = n % 2 === 0;
    const to = back ? older.releaseId : newer.releaseId;
    const title = back ? (newer.before.get(checked) as string) : (newer.titles.get(checked) as string);
    const started = Date.now();
    const answer = await site.api.call<Deployment>('POST', `/api/releases/deployments/${current}/rollback`, {
      rollbackToReleaseId: to,
    });
    const seen = await site.waitFor(checked, title, 30_000);
    if (seen === null) throw new Error(`the rollback to ${to} never showed on the page of ${idOf(checked)}`);
    result.rollback.answer.push(answer.ms);
    result.rollback.served.push(seen - started);
    current = answer.json.id;
    console.error(`  rollback to ${to}: answer ${ms(answer.ms)} ms, served ${ms(seen - started)} ms`);
  }
  const newestAfter = await site.newestBuild();
  result.rollback.buildRecorded = newestAfter !== newestBefore;
  if (ROLLBACKS % 2 === 1) for (const [i, title] of newer.before) site.liveTitle.set(i, title);
}

/** 3. Scheduled deployments, each `lead` ms ahead, built ahead, switched at validFrom. */
async function scheduledSwitches(site: BenchSite, result: ShapeResult) {
  const deployMedian = stats(result.deployOne.answer).median;
  let lead = Math.max(3000, Math.ceil(3 * (Number.isFinite(deployMedian) ? deployMedian : 1000)) + 1500);
  for (let sample = 0; sample < SWITCH_SAMPLES; sample++) {
    const [i] = site.take(1) as [number];
    const release = await site.release([i]);
    const title = release.titles.get(i) as string;
    const validFrom = Date.now() + lead;
    const posted = Date.now();
    const answer = await site.api.call<Deployment>('POST', `/api/releases/${release.id}/deploy`, {
      environmentId: 'env:prod',
      validFrom: new Date(validFrom).toISOString(),
    });
    if (answer.json.status !== 'pending') throw new Error(`scheduled deploy: ${JSON.stringify(answer.json)}`);
    const id = answer.json.id;
    let prebuildMs: number | null = null;
    while (Date.now() < validFrom - 150) {
      const d = await site.deployment(id);
      if (d.prebuiltBuildId) {
        prebuildMs = Date.now() - posted;
        break;
      }
      if (d.status !== 'pending' || d.error) break;
      await sleep(100);
    }
    const prebuiltInTime = prebuildMs !== null;
    // From just before validFrom: the page must not change early, and is timed from then.
    await sleep(validFrom - 100 - Date.now());
    let early = false;
    let seen: number | null = null;
    const deadline = validFrom + 60_000;
    while (Date.now() < deadline) {
      if (await site.shows(i, title)) {
        seen = Date.now();
        if (seen < validFrom) early = true;
        break;
      }
      await sleep(PAGE_POLL_MS);
    }
    let deployed: Deployment = await site.deployment(id);
    while (deployed.status === 'pending' && Date.now() < deadline) {
      await sleep(100);
      deployed = await site.deployment(id);
    }
    const live = site.logsFor(id, 'deployment live')[0];
    const sampleResult = {
      lead,
      prebuildMs,
      prebuiltInTime,
      served: seen === null ? null : seen - validFrom,
      deployed: deployed.deployedAt ? Date.parse(deployed.deployedAt) - validFrom : null,
      early,
      usedPrebuild: typeof live?.prebuilt === 'boolean' ? live.prebuilt : null,
      switchTookMs: typeof live?.tookMs === 'number' ? live.tookMs : null,
    };
    result.switches.push(sampleResult);
    if (seen !== null) site.liveTitle.set(i, title);
    console.error(
      `  scheduled switch ${sample + 1}: lead ${ms(lead)} ms, prebuilt after ${prebuildMs === null ? 'not in time' : `${ms(prebuildMs)} ms`}, served ${sampleResult.served === null ? 'never' : `${ms(sampleResult.served)} ms`} after validFrom (deployedAt +${ms(sampleResult.deployed ?? Number.NaN)} ms, prebuild used ${sampleResult.usedPrebuild}, switch took ${ms(sampleResult.switchTookMs ?? Number.NaN)} ms)`,
    );
    if (!prebuiltInTime) lead *= 2;
  }
}

/** 4. A drip of `DRIP_COUNT` one-item releases, 1 s apart. */
async function drip(site: BenchSite, result: ShapeResult): Promise<DripResult> {
  const count = Math.min(DRIP_COUNT, site.pages);
  const setupStarted = Date.now();
  const releases: Array<{ id: string; item: number; title: string }> = [];
  for (const i of site.take(count)) {
    const release = await site.release([i]);
    releases.push({ id: release.id, item: i, title: release.titles.get(i) as string });
  }
  const setupMs = Date.now() - setupStarted;
  // Time to build every deployment ahead (one at a time per site), estimated from the scheduled
  // switches: how long one took to be built ahead after it was scheduled (median; three times that
  // each, as a drip's builds ahead also read the deployments before them and the machine may be busy).
  const prebuilds = result.switches.map((s) => s.prebuildMs).filter((n): n is number => n !== null);
  const perPrebuild = Number.isFinite(stats(prebuilds).median) ? stats(prebuilds).median : 2000;
  const leadMs = Math.max(20_000, Math.ceil((count * perPrebuild * 3 + 15_000) / 1000) * 1000);
  const windowStart = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
  const windowEnd = windowStart + (count - 1) * DRIP_SPACING_MS;
  const scheduledAt = Date.now();
  const scheduled = await site.api.call<{ deployments: Deployment[] }>(
    'POST',
    '/api/releases/drip-schedule',
    {
      releaseIds: releases.map((r) => r.id),
      windowStart: new Date(windowStart).toISOString(),
      windowEnd: new Date(windowEnd).toISOString(),
      pattern: 'even',
      environmentId: 'env:prod',
    },
  );
  const slots = scheduled.json.deployments.map((d, index) => ({
    ...(releases[index] as { id: string; item: number; title: string }),
    deployment: d.id,
    validFrom: Date.parse(d.validFrom),
    seen: null as number | null,
  }));
  console.error(
    `  drip: ${count} releases made in ${secs(setupMs)} s; window starts ${secs(windowStart - scheduledAt)} s after scheduling`,
  );
  const ids = new Set(slots.map((s) => s.deployment));
  const list = async () =>
    (
      await site.api.call<Deployment[]>('GET', '/api/releases/deployments?envId=env:prod&limit=500')
    ).json.filter((d) => ids.has(d.id));
  let prebuildAllMs: number | null = null;
  let prebuiltAtWindow = 0;
  while (Date.now() < windowStart - 1500) {
    const ready = (await list()).filter((d) => d.prebuiltBuildId).length;
    prebuiltAtWindow = ready;
    if (ready === count) {
      prebuildAllMs = Date.now() - scheduledAt;
      break;
    }
    await sleep(1000);
  }
  console.error(
    prebuildAllMs === null
      ? `  drip: ${prebuiltAtWindow} of ${count} built ahead by the window's start`
      : `  drip: all ${count} built ahead ${secs(prebuildAllMs)} s after scheduling`,
  );
  // No page may show its scheduled title before the window.
  let early = 0;
  for (const slot of slots) if (await site.shows(slot.item, slot.title)) early += 1;
  await sleep(windowStart - 200 - Date.now());
  // Every ~20 ms, poll the pages whose validFrom has come and that do not show their title yet.
  const deadline = windowEnd + 60_000;
  while (Date.now() < deadline && slots.some((s) => s.seen === null)) {
    const due = slots.filter((s) => s.seen === null && s.validFrom <= Date.now()).slice(0, 8);
    await Promise.all(
      due.map(async (slot) => {
        if (await site.shows(slot.item, slot.title)) slot.seen = Date.now();
      }),
    );
    await sleep(PAGE_POLL_MS);
  }
  let final = await list();
  while (final.some((d) => d.status === 'pending') && Date.now() < deadline) {
    await sleep(500);
    final = await list();
  }
  const byId = new Map(final.map((d) => [d.id, d]));
  const deployedAt = slots.map((s) => {
    const d = byId.get(s.deployment);
    return d?.deployedAt ? Date.parse(d.deployedAt) : null;
  });
  const deployedLate = slots.flatMap((s, index) => {
    const at = deployedAt[index];
    return at === null || at === undefined ? [] : [at - s.validFrom];
  });
  const servedLate = slots.flatMap((s) => (s.seen === null ? [] : [s.seen - s.validFrom]));
  const inOrder = (times: Array<number | null | undefined>) =>
    times.every((t, index) => {
      const prev = times[index - 1];
      return index === 0 || (typeof t === 'number' && typeof prev === 'number' && prev <= t);
    });
  const lives = site.server.logs.filter(
    (line) => line.msg === 'deployment live' && ids.has(String(line.deploymentId)),
  );
  const stale = site.server.logs.filter(
    (line) => line.msg.startsWith('prebuilt version is stale') && ids.has(String(line.deploymentId)),
  ).length;
  for (const slot of slots) if (slot.seen !== null) site.liveTitle.set(slot.item, slot.title);
  return {
    count,
    setupMs,
    leadMs: windowStart - scheduledAt,
    prebuildAllMs,
    prebuiltAtWindow,
    deployedLate,
    servedLate,
    onSecond: slots.filter((s) => s.seen !== null && s.seen - s.validFrom < DRIP_SPACING_MS).length,
    deployedInOrder: inOrder(deployedAt),
    servedInOrder: inOrder(slots.map((s) => s.seen)),
    notDeployed: deployedAt.filter((at) => at === null).length,
    early,
    usedPrebuild: lives.filter((line) => line.prebuilt === true).length,
    rebuiltAtSwitch: lives.filter((line) => line.prebuilt === false).length,
    stale,
    switchTook: lives.map((line) => Number(line.tookMs)).filter(Number.isFinite),
  };
}

async function benchShape(pages: number): Promise<ShapeResult> {
  const loadBefore = load();
  const ticks = cpuTicks();
  const server = await startBuiltServer({ keep: (msg) => KEPT_LOGS.has(msg) });
  const result: ShapeResult = {
    pages,
    importMs: 0,
    fullBuildMs: 0,
    deployOne: { answer: [], served: [] },
    deployBig: { answer: [], served: [] },
    rollback: { answer: [], served: [], buildRecorded: false },
    switches: [],
    drip: null,
    loadBefore,
    loadAfter: [],
    steal: '',
    shed: { api: 0, pages: 0 },
  };
  const shedBefore = { ...shed };
  try {
    console.error(
      `[${pages} pages] server pid ${server.pid} at ${server.base}; load ${loadBefore.join(' / ')}`,
    );
    const { site, importMs, fullBuildMs } = await setUp(server, pages);
    result.importMs = importMs;
    result.fullBuildMs = fullBuildMs;
    console.error(`  import + publish ${ms(importMs)} ms, full build ${ms(fullBuildMs)} ms`);
    const last = await deployNow(site, result);
    await rollbacks(site, result, last);
    await scheduledSwitches(site, result);
    if (runDrip(pages)) result.drip = await drip(site, result);
  } finally {
    await server.stop();
    result.loadAfter = load();
    result.steal = stealBetween(ticks, cpuTicks());
    result.shed = { api: shed.api - shedBefore.api, pages: shed.pages - shedBefore.pages };
  }
  return result;
}

function busy(result: ShapeResult): boolean {
  return Number(result.loadBefore[0]) >= BUSY_LOAD;
}

const pair = (values: readonly number[]) => {
  const s = stats(values);
  return `${ms(s.median)} / ${ms(s.max)}`;
};

function shapeRow(r: ShapeResult): string {
  const served = r.switches.map((s) => s.served).filter((n): n is number => n !== null);
  const deployed = r.switches.map((s) => s.deployed).filter((n): n is number => n !== null);
  const prebuilds = r.switches.map((s) => s.prebuildMs).filter((n): n is number => n !== null);
  const mark = busy(r) ? ' (busy machine)' : '';
  return `| ${r.pages.toLocaleString('en-US')} posts + ${Math.ceil(r.pages / 50)} listing pages${mark} | ${ms(r.fullBuildMs)} | ${pair(r.deployOne.answer)} | ${pair(r.deployOne.served)} | ${pair(r.deployBig.answer)} | ${pair(r.deployBig.served)} | ${pair(r.rollback.answer)} | ${pair(r.rollback.served)}${r.rollback.buildRecorded ? ' (a build was recorded!)' : ''} | ${pair(prebuilds)} | ${pair(served)} | ${pair(deployed)} | ${r.loadBefore.join(' / ')} → ${r.loadAfter.join(' / ')}, steal ${r.steal} |`;
}

function dripRow(r: ShapeResult): string | null {
  const d = r.drip;
  if (!d) return null;
  const dep = stats(d.deployedLate);
  const srv = stats(d.servedLate);
  const mark = busy(r) ? ' (busy machine)' : '';
  const prebuilt =
    d.prebuildAllMs === null
      ? `not all: ${d.prebuiltAtWindow} of ${d.count} by the window's start`
      : `${secs(d.prebuildAllMs)} s (before the window)`;
  return `| ${r.pages.toLocaleString('en-US')} posts${mark} | ${d.count} × 1 s | ${prebuilt} | ${secs(d.leadMs)} s | ${ms(dep.median)} / ${ms(dep.p95)} / ${ms(dep.max)} | ${ms(srv.median)} / ${ms(srv.p95)} / ${ms(srv.max)} | ${d.onSecond} of ${d.count} | ${d.deployedInOrder ? 'yes' : 'no'} / ${d.servedInOrder ? 'yes' : 'no'} | ${d.usedPrebuild} / ${d.rebuiltAtSwitch} (${d.stale} stale) | ${d.notDeployed} / ${d.early} |`;
}

function goals(results: ShapeResult[]): string[] {
  const lines: string[] = [];
  const biggest = results.find((r) => r.pages === 1000) ?? results.at(-1);
  if (biggest) {
    const served = biggest.switches.map((s) => s.served).filter((n): n is number => n !== null);
    const max = stats(served).max;
    const missing = biggest.switches.length - served.length;
    lines.push(
      `- scheduled switch lateness < 1 s on the ${biggest.pages.toLocaleString('en-US')}-page site: median ${ms(stats(served).median)} ms, max ${ms(max)} ms — ${max < 1000 && missing === 0 ? 'met' : 'not met'}${busy(biggest) ? ' (busy machine)' : ''}`,
    );
  }
  const recorded = results.filter((r) => r.rollback.buildRecorded).map((r) => r.pages);
  lines.push(
    `- a rollback is a pointer switch, with no build recorded: ${recorded.length === 0 ? 'yes, on every shape' : `no: a build was recorded on the ${recorded.join(', ')}-page site`}`,
  );
  const early = results.filter((r) => r.switches.some((s) => s.early) || (r.drip?.early ?? 0) > 0);
  lines.push(
    `- no page showed a scheduled title before its validFrom: ${early.length === 0 ? 'yes' : `no (${early.map((r) => r.pages).join(', ')} pages)`}`,
  );
  for (const r of results) {
    if (!r.drip) continue;
    lines.push(
      `- drip, each deployment on its second (${r.pages.toLocaleString('en-US')} pages): ${r.drip.onSecond} of ${r.drip.count} served less than 1 s after their validFrom, ${r.drip.deployedInOrder ? 'all' : 'not all'} went live in order — ${r.drip.onSecond === r.drip.count && r.drip.deployedInOrder ? 'met' : 'not met'}${busy(r) ? ' (busy machine)' : ''}`,
    );
  }
  return lines;
}

function writeSection(
  results: ShapeResult[],
  started: { at: Date; load: string[]; ticks: ReturnType<typeof cpuTicks> },
  notes: string[],
) {
  const drips = results.map(dripRow).filter((row): row is string => row !== null);
  writeDocSection('releases', [
    '## Releases: deploy, scheduled switch, drip, rollback (HTTP, built server)',
    '',
    `Measured by \`pnpm --filter @trelliscms/server bench\` (\`packages/server/bench/releases.bench.ts\`), ${started.at.toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${CORES} × ${cpus()[0]?.model.trim() ?? 'cpu'}, load average ${started.load.join(' / ')} at the start and ${load().join(' / ')} at the end, CPU time taken by the hypervisor (steal) during the run ${stealBetween(started.ticks, cpuTicks())}. A shape whose 1-minute load average was ${BUSY_LOAD} or more before it started (other work on the ${CORES} cores) is marked *busy machine*.`,
    `Each shape runs the built server (\`dist/main.js\`, log level info, scheduler on, polling every 1 s and timed to the soonest validFrom) as its own process on a fresh temp data dir, one after the other in this run: a type \`post\` (routePattern \`/posts/{slug}/\`) with a template printing the title, a home listing (\`/\`, 50 posts a page), N posts imported with \`publish: 'prod'\`, then a full prod build. Everything is timed by this client over HTTP on loopback; "served" is the first time \`GET /sites/<slug>/prod/posts/<slug>/\`, polled every ${PAGE_POLL_MS} ms, shows the new title.`,
    `Deploy now: \`POST /api/releases/{id}/deploy\` (validFrom now) of a release changing 1 item, and of one changing ${BIG_RELEASE}, ${DEPLOY_SAMPLES} of each; the answer comes after the build with the release applied is switched in. Rollback: \`POST /api/releases/deployments/{id}/rollback\` of the last deployment to the release before it and forward again, ${ROLLBACKS} times (a pointer switch: no build may be recorded — checked with \`GET /api/build/history\`). Scheduled switch: ${SWITCH_SAMPLES} deployments of a 1-item release with validFrom a few seconds ahead (long enough for the scheduler to build it ahead: \`prebuiltBuildId\` set), lateness = first served − validFrom, and \`deployedAt\` − validFrom as the server records it.`,
    'Goal: a scheduled switch less than 1 s late on the 1,000-page site.',
    '',
    '| Site | Full build (ms) | Deploy now, 1 item: answer (median / max ms) | served | Deploy now, 50 items: answer | served | Rollback: answer | served | Scheduled: built ahead after (ms) | Scheduled: served − validFrom (median / max ms) | deployedAt − validFrom | Load before → after (1 / 5 / 15 min) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...results.map(shapeRow),
    '',
    ...(drips.length > 0
      ? [
          `Drip: ${DRIP_COUNT} approved releases, each changing one distinct post, scheduled with \`POST /api/releases/drip-schedule\` (pattern even, 1 s apart); the window starts once the scheduler can have built every deployment ahead (estimated from the scheduled switches; one build ahead at a time per site). Each page is polled from its validFrom until it shows its title; \`deployedAt\` is read back with \`GET /api/releases/deployments\`. The last columns come from the server's log (\`deployment live\`: whether the build made ahead was switched in, or built at the switch because what it stood on had changed).`,
          '',
          '| Site | Deployments | All built ahead after | Window start after scheduling | deployedAt − validFrom (median / p95 / max ms) | served − validFrom (median / p95 / max ms) | Served within 1 s | In order (deployedAt / served) | Built ahead / built at the switch | Never deployed / served early |',
          '| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |',
          ...drips,
          '',
        ]
      : ['The drip was not run (`BENCH_RELEASE_DRIP=0`).', '']),
    'Goals and checks, in this run:',
    '',
    ...goals(results),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
  ]);
}

const started = { at: new Date(), load: load(), ticks: cpuTicks() };
const results: ShapeResult[] = [];
for (const pages of SIZES) {
  const result = await benchShape(pages);
  results.push(result);
  console.log(shapeRow(result));
  const row = dripRow(result);
  if (row) console.log(row);
}
const notes: string[] = [];
for (const r of results) {
  const early = r.switches.filter((s) => s.early).length + (r.drip?.early ?? 0);
  if (early > 0)
    notes.push(`**${r.pages} pages: ${early} page(s) showed a scheduled title before its validFrom.**`);
  const late = r.switches.filter((s) => !s.prebuiltInTime).length;
  if (late > 0)
    notes.push(`${r.pages} pages: ${late} scheduled deployment(s) were not built ahead by their validFrom.`);
  if (r.shed.api + r.shed.pages > 0)
    notes.push(
      `${r.pages} pages: the server's load shedding (event-loop delay over 1 s) answered 503 to ${r.shed.api} API call(s), sent again (their time counts from the first try), and to ${r.shed.pages} page poll(s).`,
    );
  const rebuilt = r.switches.filter((s) => s.usedPrebuild === false).length;
  if (rebuilt > 0)
    notes.push(`${r.pages} pages: ${rebuilt} scheduled deployment(s) were built at the switch, not ahead.`);
}
if (WRITE_DOC) {
  writeSection(results, started, notes);
  console.log(`Updated ${benchmarksDoc}`);
}
