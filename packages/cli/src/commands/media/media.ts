import { basename, resolve } from 'node:path';
import type { MediaAsset } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms media list [--q text] [--count]`: assets newest first, or only how many match. */
export async function mediaList({
  site,
  out,
  q,
  count,
}: Deps & { q?: string; count: boolean }): Promise<number> {
  const query = q ? { q } : {};
  if (count) {
    const total = await site.media.count(query);
    out.result({ total }, () => `${total} asset(s)${q ? ` matching "${q}"` : ''}.`);
    return ExitCode.ok;
  }
  const assets = await site.media.list(query);
  out.result(assets, () =>
    table(
      assets.map((asset) => ({ ...asset, size: humanBytes(asset.bytes) })),
      ['id', 'filename', 'mimetype', 'size', 'url', 'uploadedAt'],
    ),
  );
  return ExitCode.ok;
}

/** `cms media upload <files...>`: each file in turn (images, videos, PDFs; 25 MB at most each). */
export async function mediaUpload({
  site,
  out,
  io,
  files,
}: Deps & Pick<SiteCommandDeps, 'io'> & { files: string[] }): Promise<number> {
  const uploaded: MediaAsset[] = [];
  for (const file of files) {
    let data: Buffer;
    try {
      data = await io.fs.readFile(resolve(io.cwd, file));
    } catch (error) {
      throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
    }
    const asset = await site.media.upload(new Blob([new Uint8Array(data)]), basename(file));
    uploaded.push(asset);
    out.note(`uploaded ${file} as ${asset.id} (${humanBytes(asset.bytes)})`);
  }
  out.result(uploaded.length === 1 ? uploaded[0] : uploaded, () =>
    uploaded.map((asset) => `${asset.id}  ${asset.url}  ${asset.filename}`),
  );
  return ExitCode.ok;
}

/** `cms media rm <id> [--cascade]`: 409 `in_use` while items show it; `--cascade` clears it from them first. */
export async function mediaDelete({
  site,
  out,
  id,
  cascade,
}: Deps & { id: string; cascade: boolean }): Promise<number> {
  await site.media.delete(id, { cascade });
  out.result({ ok: true, id, cascade }, () =>
    cascade ? `Deleted ${id} and cleared it from the items that showed it.` : `Deleted ${id}.`,
  );
  return ExitCode.ok;
}

export type StockProviderName = 'pexels' | 'unsplash' | 'pixabay';

/** `cms media stock search <q> --provider pexels`: stock photos, normalised (the server holds the provider keys). */
export async function mediaStock({
  site,
  out,
  q,
  provider,
  orientation,
  page,
  perPage,
}: Deps & {
  q: string;
  provider: StockProviderName;
  orientation?: 'landscape' | 'portrait' | 'square';
  page?: number;
  perPage?: number;
}): Promise<number> {
  const answer = await site.media.stock({
    provider,
    q,
    ...(orientation ? { orientation } : {}),
    ...(page ? { page } : {}),
    ...(perPage ? { perPage } : {}),
  });
  out.result(answer, () => [
    ...table(answer.items, ['id', 'photographer', 'width', 'height', 'url']),
    ...(answer.total !== undefined
      ? [
          `page ${answer.page ?? 1} of ${answer.total} result(s); import one with cms media stock import ${provider} <id>`,
        ]
      : []),
  ]);
  return ExitCode.ok;
}

/** `cms media stock import <provider> <id>`: stores a stock photo as a media asset, with its credit. */
export async function mediaStockImport({
  site,
  out,
  provider,
  id,
  filename,
}: Deps & { provider: StockProviderName; id: string; filename?: string }): Promise<number> {
  const asset = await site.media.stockImport({ provider, id, ...(filename ? { filename } : {}) });
  out.result(asset, () => {
    const credit = asset.credit;
    return [
      `${asset.id}  ${asset.url}  ${asset.filename} (${humanBytes(asset.bytes)})`,
      ...(credit
        ? [
            `credit: ${credit.photographer ?? 'unknown'} on ${credit.provider}${credit.pageUrl ? ` (${credit.pageUrl})` : ''}, ${credit.license}`,
          ]
        : []),
    ];
  });
  return ExitCode.ok;
}

/** `1536` as `1.5 KB`. */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
