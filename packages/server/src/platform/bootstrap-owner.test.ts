import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { buildApp } from '../http/app';
import { systemClock } from '../shared/clock';
import { firstStartNotice } from './bootstrap-owner';
import { resetOwnerKey } from './owner-key';

const where = { address: 'http://127.0.0.1:4000', dataDir: '/srv/trellis' };
const ownerKeyNotice = (bootstrap: Parameters<typeof firstStartNotice>[0]) =>
  firstStartNotice(bootstrap, where);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function start(dataDir: string, env: Record<string, string> = {}) {
  const app = await buildApp({
    config: loadConfig({ CMS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', CMS_SCHEDULER: '0', ...env }),
    logger: false,
  });
  await app.ready();
  return app;
}

async function sites(app: Awaited<ReturnType<typeof start>>, key: string) {
  return (await app.inject({ method: 'GET', url: '/api/sites', headers: { authorization: `Bearer ${key}` } }))
    .statusCode;
}

describe('owner key bootstrap', () => {
  it('generates an owner key on the first start, prints it once, and never again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-boot-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const bootstrap = first.ownerBootstrap;
    expect(bootstrap?.generated).toBe(true);
    const notice = ownerKeyNotice(bootstrap);
    expect(notice).toContain(bootstrap?.token);
    expect(notice).toContain('/srv/trellis');
    expect(notice).toContain('cms login --url http://127.0.0.1:4000 --key-stdin');
    expect(await sites(first, bootstrap?.token ?? '')).toBe(200);
    await first.close();

    const second = await start(dataDir);
    expect(second.ownerBootstrap).toBeNull();
    expect(ownerKeyNotice(second.ownerBootstrap)).toBeNull();
    // The key survives the restart; it was stored hashed, not printed again.
    expect(await sites(second, bootstrap?.token ?? '')).toBe(200);
    await second.close();
  });

  it('uses CMS_OWNER_KEY on the first start only (the notice does not repeat it), and warns when a later one does not match', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-boot-'));
    dirs.push(dataDir);
    const chosen = 'operator-chosen-owner-key-42';
    const first = await start(dataDir, { CMS_OWNER_KEY: chosen });
    expect(first.ownerBootstrap).toMatchObject({ generated: false });
    expect(ownerKeyNotice(first.ownerBootstrap)).not.toContain(chosen);
    expect(first.ownerKeyStatus).toBeNull();
    expect(await sites(first, chosen)).toBe(200);
    await first.close();
    // A different CMS_OWNER_KEY on a later start changes nothing.
    const second = await start(dataDir, { CMS_OWNER_KEY: 'another-key-entirely-000' });
    expect(second.ownerBootstrap).toBeNull();
    expect(await sites(second, 'another-key-entirely-000')).toBe(401);
    expect(await sites(second, chosen)).toBe(200);
    expect(second.ownerKeyStatus).toBe('unknown');
    await second.close();
    const third = await start(dataDir, { CMS_OWNER_KEY: chosen });
    expect(third.ownerKeyStatus).toBe('active');
    await third.close();
  });

  it('replaces a lost owner key from the data directory: the old one stops working, the new one works', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-boot-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const lost = first.ownerBootstrap?.token ?? '';
    await first.close();

    const engineApp = await start(dataDir);
    const reset = await resetOwnerKey({ platform: engineApp.trellis.platform, clock: systemClock });
    await engineApp.close();
    expect(reset.revoked).toHaveLength(1);

    const after = await start(dataDir, { CMS_OWNER_KEY: lost });
    expect(await sites(after, lost)).toBe(401);
    expect(await sites(after, reset.token)).toBe(200);
    expect(after.ownerKeyStatus).toBe('revoked');
    await after.close();
  });
});
