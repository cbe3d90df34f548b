import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { buildApp } from './http/app';
import { runOperatorCommand } from './operator-commands';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const noStdin = () => Promise.reject(new Error('stdin is not read without --key-stdin'));

describe('trellis-server operator commands', () => {
  it('starts the server when no command is given, and explains itself with help', async () => {
    expect(await runOperatorCommand([], {}, noStdin)).toBeNull();
    const help = await runOperatorCommand(['--help'], {}, noStdin);
    expect(help).toMatchObject({ code: 0 });
    expect(help?.stdout).toContain('reset-owner-key');
    const unknown = await runOperatorCommand(['reset-ower-key'], {}, noStdin);
    expect(unknown?.code).toBe(2);
    expect(unknown?.stderr).toContain('unknown command "reset-ower-key"');
  });

  it('reset-owner-key replaces the owner key of a data directory with the one read from stdin', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-opcmd-'));
    dirs.push(dataDir);
    const env = { CMS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', CMS_SCHEDULER: '0' };

    const empty = await runOperatorCommand(['reset-owner-key'], env, noStdin);
    expect(empty?.code).toBe(1);
    expect(empty?.stderr).toContain('start the server once first');

    const first = await buildApp({ config: loadConfig(env), logger: false });
    await first.ready();
    const lost = first.ownerBootstrap?.token ?? '';
    await first.close();

    const short = await runOperatorCommand(['reset-owner-key', '--key-stdin'], env, async () => 'short\n');
    expect(short?.code).toBe(2);
    const chosen = 'replacement-owner-key-0123456789';
    const reset = await runOperatorCommand(
      ['reset-owner-key', '--key-stdin'],
      env,
      async () => `${chosen}\n`,
    );
    expect(reset).toMatchObject({ code: 0, stderr: '' });
    expect(reset?.stdout).toContain('Revoked 1 earlier owner key');
    expect(reset?.stdout).not.toContain(chosen);

    const after = await buildApp({ config: loadConfig(env), logger: false });
    await after.ready();
    const status = async (key: string) =>
      (await after.inject({ method: 'GET', url: '/api/sites', headers: { authorization: `Bearer ${key}` } }))
        .statusCode;
    expect(await status(lost)).toBe(401);
    expect(await status(chosen)).toBe(200);
    await after.close();
  });
});
