import { resolve } from 'node:path';
import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';

/**
 * `cms sdk generate [--out dir]`: writes the site's `types.d.ts` (GET /api/sdk/types.d.ts) and
 * `client.ts` (GET /api/sdk/client.ts) into `dir` (default `./trellis`).
 */
export async function sdkGenerate({
  site,
  out,
  io,
  dir = 'trellis',
}: Pick<SiteCommandDeps, 'site' | 'out' | 'io'> & { dir?: string }): Promise<number> {
  const [types, client] = await Promise.all([site.sdk.types(), site.sdk.client()]);
  const target = resolve(io.cwd, dir);
  await io.fs.mkdir(target, { recursive: true });
  const files = [resolve(target, 'types.d.ts'), resolve(target, 'client.ts')];
  await io.fs.writeFile(files[0]!, types);
  await io.fs.writeFile(files[1]!, client);
  const typeCount = (types.match(/^ {2}\S+: \{ fields: /gm) ?? []).length;
  out.result({ ok: true, dir: target, files, types: typeCount }, () => [
    `Wrote the typed client of ${site.id} (${typeCount} content type(s)) to ${target}:`,
    ...files.map((file) => `  ${file}`),
    `Use it: import { createSiteClient } from './${dir.replace(/^\.\//, '')}/client';`,
  ]);
  return ExitCode.ok;
}
