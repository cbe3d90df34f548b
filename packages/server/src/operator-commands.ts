import { resolve } from 'node:path';
import { ConfigError, loadConfig } from './config';
import { createEngine } from './engines';
import { resetOwnerKey } from './platform/owner-key';
import { PLATFORM_GRAPH } from './platform/platform-graph';
import { systemClock } from './shared/clock';

/** `trellis-server --help`. */
export const SERVER_HELP = `Usage: trellis-server [command]

Starts the Trellis API server (no command), configured by environment variables
(docs/configuration.md): CMS_DATA_DIR (default ./.trellis), HOST, PORT, CMS_ENGINE, ...

Commands:
  reset-owner-key [--key-stdin]   Replace a lost platform owner key: revokes every owner key
                                  and prints a new one once. Run it with the server stopped,
                                  with the same CMS_DATA_DIR (or CMS_ENGINE=neo4j settings).
                                  --key-stdin: use the key read from standard input (at least
                                  16 characters) instead of minting one.
  help                            Show this text.

Example:
  CMS_DATA_DIR=/var/lib/trellis trellis-server reset-owner-key
`;

/** What an operator command printed and its exit code. */
export interface OperatorOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `trellis-server <command>` (not the server); null when `argv` names no command, so the
 * server starts. `readStdin` gives the key for `--key-stdin`.
 */
export async function runOperatorCommand(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  readStdin: () => Promise<string>,
): Promise<OperatorOutcome | null> {
  const [command, ...rest] = argv;
  if (command === undefined) return null;
  if (command === 'help' || command === '--help' || command === '-h') {
    return { code: 0, stdout: SERVER_HELP, stderr: '' };
  }
  if (command !== 'reset-owner-key') {
    return { code: 2, stdout: '', stderr: `trellis-server: unknown command "${command}"\n\n${SERVER_HELP}` };
  }
  const unknown = rest.filter((arg) => arg !== '--key-stdin');
  if (unknown.length > 0) {
    return { code: 2, stdout: '', stderr: `trellis-server reset-owner-key: unknown option ${unknown[0]}\n` };
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError)
      return { code: 1, stdout: '', stderr: `trellis-server: ${error.message}\n` };
    throw error;
  }
  let token: string | undefined;
  if (rest.includes('--key-stdin')) {
    token = (await readStdin()).trim();
    if (token.length < 16) {
      return {
        code: 2,
        stdout: '',
        stderr: 'trellis-server: the key read from standard input must be at least 16 characters\n',
      };
    }
  }
  const engine = createEngine(config);
  await engine.init();
  try {
    const platform = await engine.openGraph(PLATFORM_GRAPH);
    if (!platform) {
      return {
        code: 1,
        stdout: '',
        stderr: `trellis-server: no platform in ${config.CMS_ENGINE === 'embedded' ? resolve(config.CMS_DATA_DIR) : 'this Neo4j database'}: start the server once first\n`,
      };
    }
    const reset = await resetOwnerKey({ platform, clock: systemClock, token });
    const shown =
      token === undefined
        ? `\nNew platform owner API key (shown once; store it now):\n\n  ${reset.token}\n`
        : '\nThe key from standard input is now the platform owner key.\n';
    return {
      code: 0,
      stdout: `${shown}\nRevoked ${reset.revoked.length} earlier owner key(s). Next: cms login --url <server> --key-stdin\n`,
      stderr: '',
    };
  } catch (error) {
    return {
      code: 1,
      stdout: '',
      stderr: `trellis-server: ${error instanceof Error ? error.message : String(error)}\n`,
    };
  } finally {
    await engine.close();
  }
}
