import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import { UsageError } from '../errors';
import type { Fs } from '../io/cli-io';

/** One saved connection. */
export interface Profile {
  url: string;
  /** Absent after `cms logout`. */
  key?: string;
  /** The default site (`site:<slug>`) of site-scoped commands. */
  site?: string;
}

/** The config file: named profiles and which one is current. */
export interface ConfigFile {
  currentProfile: string;
  profiles: Record<string, Profile>;
}

/**
 * The config file path: `$XDG_CONFIG_HOME/trellis/config.json` when XDG_CONFIG_HOME is set,
 * else the user's config directory from env-paths (`~/.config/trellis`, `~/Library/Preferences/trellis`,
 * `%APPDATA%\trellis\Config`).
 */
export function configPath(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME;
  const dir = xdg ? join(xdg, 'trellis') : envPaths('trellis', { suffix: '' }).config;
  return join(dir, 'config.json');
}

/** Reads the config file; an absent file is an empty config. */
export async function readConfig(fs: Fs, file: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return { currentProfile: 'default', profiles: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { currentProfile: parsed.currentProfile ?? 'default', profiles: parsed.profiles ?? {} };
  } catch {
    throw new UsageError(
      `The config file ${file} is not valid JSON; fix it or delete it and run cms login again.`,
    );
  }
}

/** Writes the config file, readable by the user only (it holds API keys). */
export async function writeConfig(fs: Fs, file: string, config: ConfigFile): Promise<void> {
  await fs.mkdir(dirname(file), { recursive: true });
  await fs.writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await fs.chmod(file, 0o600);
}
