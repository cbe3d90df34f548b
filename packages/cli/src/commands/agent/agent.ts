import { UsageError } from '../../errors';
import type { Output } from '../../io/output';

/** Which client's configuration `cms agent info` prints. */
export type AgentClientFormat = 'http' | 'claude-desktop';

/** Where the key goes when it is not shown. */
export const KEY_PLACEHOLDER = '<your API key>';

/**
 * The MCP client configuration for a site: `http` is the `mcpServers` entry of clients that
 * speak Streamable HTTP themselves (Claude Code's `.mcp.json`, Cursor, VS Code, the MCP
 * inspector's fields); `claude-desktop` runs the `mcp-remote` bridge, as Claude Desktop's config
 * file starts local commands only.
 */
export function agentClientConfig({
  endpoint,
  site,
  key,
  format,
}: {
  endpoint: string;
  site: string;
  key: string;
  format: AgentClientFormat;
}): Record<string, unknown> {
  const name = `trellis-${site.slice('site:'.length)}`;
  if (format === 'claude-desktop') {
    return {
      mcpServers: {
        [name]: {
          command: 'npx',
          args: [
            '-y',
            'mcp-remote',
            endpoint,
            '--header',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands it (the key stays out of the arguments)
            'Authorization:${TRELLIS_AUTH}',
            '--header',
            `X-Site-Id:${site}`,
          ],
          env: { TRELLIS_AUTH: `Bearer ${key}` },
        },
      },
    };
  }
  return {
    mcpServers: {
      [name]: { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${key}`, 'X-Site-Id': site } },
    },
  };
}

/**
 * `cms agent info`: the MCP endpoint of the server, the site and a ready-to-paste client
 * configuration. Works offline from the profile; the key is printed only with `showKey`.
 */
export function agentInfo({
  out,
  url,
  site,
  key,
  showKey,
  format,
}: {
  out: Output;
  url: string;
  site: string | undefined;
  key: string | undefined;
  showKey: boolean;
  format: AgentClientFormat;
}): number {
  if (!site) {
    throw new UsageError('No site: pass --site <slug>, set CMS_SITE, or run cms sites use <id>.');
  }
  if (showKey && !key) {
    throw new UsageError('No key to show: pass --key, set CMS_API_KEY, or run cms login.');
  }
  const endpoint = `${url}/api/agent`;
  const shownKey = showKey && key ? key : KEY_PLACEHOLDER;
  const config = agentClientConfig({ endpoint, site, key: shownKey, format });
  out.result({ url: endpoint, site, transport: 'streamable-http', config }, () => [
    `MCP endpoint: ${endpoint} (Streamable HTTP, POST only, stateless)`,
    `Headers:      Authorization: Bearer ${shownKey}`,
    `              X-Site-Id: ${site}`,
    '',
    `Client configuration (${format === 'http' ? 'Claude Code .mcp.json, Cursor, VS Code' : 'Claude Desktop, through mcp-remote'}):`,
    JSON.stringify(config, null, 2),
    ...(showKey
      ? []
      : [
          '',
          `Replace ${KEY_PLACEHOLDER} with an API key of this site (cms keys create), or rerun with --show-key.`,
        ]),
    'The agent acts with the key’s role: a viewer key reads, an editor key also writes drafts; no tool publishes or deploys.',
  ]);
  return 0;
}
