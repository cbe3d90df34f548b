import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { runCli } from '../../test-support/run-cli';

const t = setUpCommandTests('cms-agent-');
const KEY = 'tk_agent_secret_0123456789';
const cli = (argv: string[]) =>
  runCli(['--url', '127.0.0.1:4000/api', '--key', KEY, ...argv], {
    env: { XDG_CONFIG_HOME: join(t.dir, 'config') },
    cwd: t.dir,
  });

describe('cms agent info', () => {
  it('prints the endpoint and an http client configuration without the key', async () => {
    const result = await cli(['--site', 'blog', 'agent', 'info']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('MCP endpoint: http://127.0.0.1:4000/api/agent');
    expect(result.stdout).not.toContain(KEY);
    const json = await cli(['--site', 'blog', '--json', 'agent', 'info']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      url: 'http://127.0.0.1:4000/api/agent',
      site: 'site:blog',
      transport: 'streamable-http',
      config: {
        mcpServers: {
          'trellis-blog': {
            type: 'http',
            url: 'http://127.0.0.1:4000/api/agent',
            headers: { Authorization: 'Bearer <your API key>', 'X-Site-Id': 'site:blog' },
          },
        },
      },
    });
    expect(json.stdout).not.toContain(KEY);
  });

  it('puts the key in with --show-key, and prints the Claude Desktop bridge with --client claude-desktop', async () => {
    const result = await cli([
      '--site',
      'site:blog',
      '--json',
      'agent',
      'info',
      '--show-key',
      '--client',
      'claude-desktop',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const server = JSON.parse(result.stdout).config.mcpServers['trellis-blog'];
    expect(server.command).toBe('npx');
    expect(server.args).toEqual(
      expect.arrayContaining(['mcp-remote', 'http://127.0.0.1:4000/api/agent', 'X-Site-Id:site:blog']),
    );
    expect(server.env.TRELLIS_AUTH).toBe(`Bearer ${KEY}`);
  });

  it('needs a site, and refuses an unknown client format', async () => {
    const noSite = await cli(['agent', 'info']);
    expect(noSite.code).toBe(2);
    expect(noSite.stderr).toContain('No site');
    const badFormat = await cli(['--site', 'blog', 'agent', 'info', '--client', 'emacs']);
    expect(badFormat.code).toBe(2);
  });
});
