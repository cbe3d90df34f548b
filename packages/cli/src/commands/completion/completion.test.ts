import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { runCli } from '../../test-support/run-cli';

const t = setUpCommandTests('cms-completion-');
const complete = async (...words: string[]) => {
  const result = await runCli(['__complete', '--', ...words], {
    env: { XDG_CONFIG_HOME: join(t.dir, 'config') },
    cwd: t.dir,
  });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
};

describe('cms completion', () => {
  it('prints a script for bash, zsh and fish that asks cms __complete', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const result = await runCli(['completion', shell], { cwd: t.dir });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('cms __complete --');
    }
    expect((await runCli(['completion', 'bash'], { cwd: t.dir })).stdout).toContain('complete -o default -F');
    const bad = await runCli(['completion', 'powershell'], { cwd: t.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'powershell' is invalid");
  });

  it('completes commands, subcommands, options, choices and profile names', async () => {
    expect(await complete('si')).toEqual(['sites']);
    expect(await complete('sites', '')).toEqual(['list', 'create', 'get', 'update', 'delete', 'use']);
    expect(await complete('profiles', 'r')).toEqual(['remove']);
    expect(await complete('build', '--mo')).toEqual(['--mode']);
    expect(await complete('build', '--mode', '')).toEqual(['full', 'incremental', 'auto', 'validate']);
    expect(await complete('--json', 'media', 'u')).toEqual(['upload']);
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete('')).not.toContain('__complete');
    await mkdir(join(t.dir, 'config', 'trellis'), { recursive: true });
    await writeFile(
      join(t.dir, 'config', 'trellis', 'config.json'),
      JSON.stringify({
        currentProfile: 'local',
        profiles: { local: { url: 'http://x' }, prod: { url: 'https://y' } },
      }),
    );
    expect(await complete('sites', 'list', '--profile', 'p')).toEqual(['prod']);
  });
});
