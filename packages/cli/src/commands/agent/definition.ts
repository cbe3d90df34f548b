import { type Command, Option } from 'commander';
import { type CommandKit, group, subcommand } from '../command-kit';
import { type AgentClientFormat, agentInfo } from './agent';

export interface AgentInfoFlags {
  showKey?: boolean;
  client?: AgentClientFormat;
}

/** `cms agent info` */
export function defineAgentCommands(program: Command, { action }: CommandKit): void {
  const agent = group(program, 'agent', 'Connect AI agents to a site over MCP (/api/agent)', [
    'cms agent info',
    'cms agent info --client claude-desktop --show-key',
  ]);
  subcommand(
    agent,
    'info',
    'Print the MCP endpoint and a client configuration for the current site',
    ['cms agent info', 'cms agent info --site blog --client claude-desktop'],
    'The configuration uses the profile’s server and site. The key is left as a placeholder unless --show-key is given; an agent acts with the role of the key it sends (docs/agent.md).',
  )
    .option('--show-key', 'put the profile’s API key into the configuration')
    .addOption(
      new Option(
        '--client <format>',
        'configuration shape: http (Claude Code, Cursor, VS Code) or claude-desktop',
      )
        .choices(['http', 'claude-desktop'])
        .default('http'),
    )
    .action(
      action<AgentInfoFlags>(async (context, _args, options) => {
        const connection = await context.connection();
        return agentInfo({
          out: context.out,
          url: connection.url,
          site: connection.site,
          key: connection.key,
          showKey: options.showKey === true,
          format: options.client ?? 'http',
        });
      }),
    );
}
