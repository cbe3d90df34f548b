import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EngineError } from '../port';

/** The file, in the data directory, holding the audit key when `CMS_AUDIT_KEY` is not set. */
export const AUDIT_KEY_FILE = 'audit.key';

/** The fewest characters `CMS_AUDIT_KEY` may have (32 bytes of hex is 64). */
export const MIN_AUDIT_KEY_CHARS = 32;

/**
 * The secret the audit chains are keyed with (HMAC-SHA256, docs/audit.md), kept outside every
 * graph: `envKey` (`CMS_AUDIT_KEY`, its UTF-8 bytes) when given, else the file
 * `<dataDir>/audit.key`, created on first use with 32 random bytes (hex) and mode 0600. Two
 * processes starting at once on one data directory end with the same key: the file is created
 * exclusively and the loser reads the winner's. A key file others may read is made private.
 * Servers sharing a Neo4j database on several hosts must share the key: set `CMS_AUDIT_KEY`.
 */
export function loadAuditKey(options: { envKey?: string; dataDir: string }): Buffer {
  if (options.envKey !== undefined && options.envKey !== '') {
    if (options.envKey.length < MIN_AUDIT_KEY_CHARS) {
      throw new EngineError(
        'invalid_argument',
        `CMS_AUDIT_KEY must have at least ${MIN_AUDIT_KEY_CHARS} characters`,
      );
    }
    return Buffer.from(options.envKey, 'utf8');
  }
  const dir = resolve(options.dataDir);
  const file = join(dir, AUDIT_KEY_FILE);
  mkdirSync(dir, { recursive: true });
  try {
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  // A second process may read the file between its creation and the write: wait for the key.
  for (let attempt = 0; attempt < 200; attempt++) {
    const text = readFileSync(file, 'utf8').trim();
    if (text.length >= MIN_AUDIT_KEY_CHARS) return Buffer.from(text, 'utf8');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  throw new EngineError(
    'unavailable',
    `The audit key file ${file} holds fewer than ${MIN_AUDIT_KEY_CHARS} characters`,
    {
      hint: 'Restore it from a backup (the chains written with it verify only with it), or set CMS_AUDIT_KEY.',
    },
  );
}
