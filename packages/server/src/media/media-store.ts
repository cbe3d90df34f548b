import { createHash } from 'node:crypto';
import { type MediaAsset, type StockCredit, TrellisError } from '@trelliscms/core';
import { imageSize } from 'image-size';
import { clearFieldsIn } from '../content/item-repository';
import type { Graph, GraphEngine, GraphNode, GraphReader } from '../engines/port';
import { listSites } from '../platform/sites';
import { assertDeletable } from '../shared/in-use';
import { internalNodeIdOf, publicResourceId } from '../shared/internal-ids';
import { assetHolders, findAssetUses } from './asset-holders';
import { localMediaFiles, type MediaFiles } from './media-files';
import { sniffMediaType } from './sniff-media-type';

/** Node label of a media asset in a site graph. */
export const MEDIA_LABEL = 'MediaAsset';

export { assetsDir } from './media-files';

/** The asset id of a file: `asset:` and the first 24 hex digits of its sha256. */
export function assetIdOf(sha256: string): string {
  return `asset:${sha256.slice(0, 24)}`;
}

/**
 * The node id of asset `asset:<id>`: `~asset:<id>` (shared/internal-ids), so no item id can
 * equal it; the API, audit entries and item fields name the asset by its `asset:<id>`.
 */
export function assetNodeId(assetId: string): string {
  return internalNodeIdOf(assetId);
}

/** The props a stock photo's credit is stored in (flat: graph props are scalars). */
const CREDIT_PROPS = {
  provider: 'creditProvider',
  id: 'creditId',
  photographer: 'creditPhotographer',
  photographerUrl: 'creditPhotographerUrl',
  pageUrl: 'creditPageUrl',
  license: 'creditLicense',
} as const satisfies Record<keyof StockCredit, string>;

function creditProps(credit: StockCredit | undefined): Record<string, string | null> {
  if (!credit) return {};
  return Object.fromEntries(
    Object.entries(CREDIT_PROPS).map(([key, prop]) => [prop, credit[key as keyof StockCredit] ?? null]),
  );
}

function creditOf(props: Record<string, unknown>): StockCredit | undefined {
  if (typeof props.creditProvider !== 'string') return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    provider: props.creditProvider as StockCredit['provider'],
    id: String(props.creditId),
    photographer: text(props.creditPhotographer),
    photographerUrl: text(props.creditPhotographerUrl),
    pageUrl: text(props.creditPageUrl),
    license: String(props.creditLicense),
  };
}

export function toMediaAsset(node: GraphNode): MediaAsset {
  const props = node.props;
  const credit = creditOf(props);
  return {
    ok: true,
    id: publicResourceId(node.id),
    url: String(props.url),
    sha256: String(props.sha256),
    filename: String(props.filename),
    mimetype: String(props.mimetype),
    bytes: Number(props.bytes),
    width: typeof props.width === 'number' ? props.width : null,
    height: typeof props.height === 'number' ? props.height : null,
    uploadedBy: String(props.uploadedBy),
    uploadedAt: String(props.uploadedAt),
    ...(credit ? { credit } : {}),
  };
}

function dimensions(content: Buffer, kind: string): { width: number | null; height: number | null } {
  if (kind !== 'image') return { width: null, height: null };
  try {
    const size = imageSize(content);
    return { width: size.width ?? null, height: size.height ?? null };
  } catch {
    // A file with a valid signature but a header image-size cannot read: stored without dimensions.
    return { width: null, height: null };
  }
}

/** A file name safe to show: the base name, without control characters, at most 255 characters. */
function cleanFilename(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return clean || fallback;
}

/**
 * Stores an uploaded file as a media asset: the type comes from the content's magic bytes
 * (400 `media_type_not_allowed` otherwise), the sha256 names the file and keys the asset,
 * so the same content uploaded again answers the stored asset (`created: false`).
 */
export async function saveAsset({
  graph,
  dataDir,
  files = localMediaFiles(dataDir),
  content,
  filename,
  actor,
  now,
  credit,
}: {
  graph: Graph;
  dataDir: string;
  /** where the file goes (default: `<dataDir>/media/assets/`) */
  files?: MediaFiles;
  content: Buffer;
  filename: string | undefined;
  actor: string;
  now: Date;
  /** An imported stock photo's credit, stored with a new asset. */
  credit?: StockCredit;
}): Promise<{ asset: MediaAsset; created: boolean }> {
  const type = sniffMediaType(content);
  if (!type) {
    throw TrellisError.of('media_type_not_allowed', {
      detail:
        content.length === 0 ? 'the file is empty' : 'its content is not a recognised image, video or PDF',
    });
  }
  const sha256 = createHash('sha256').update(content).digest('hex');
  const id = assetIdOf(sha256);
  const existing = await graph.getNode(assetNodeId(id));
  if (existing?.labels.includes(MEDIA_LABEL)) return { asset: toMediaAsset(existing), created: false };

  await files.put(`${sha256}.${type.ext}`, content, type.mimetype);
  const { width, height } = dimensions(content, type.kind);
  const asset: MediaAsset = {
    ok: true,
    id,
    url: `/media/assets/${sha256}.${type.ext}`,
    sha256,
    filename: cleanFilename(filename, `${sha256}.${type.ext}`),
    mimetype: type.mimetype,
    bytes: content.length,
    width,
    height,
    uploadedBy: actor,
    uploadedAt: now.toISOString(),
    ...(credit ? { credit } : {}),
  };
  const { ok: _ok, id: _id, credit: _credit, ...fields } = asset;
  const props = { ...fields, ...creditProps(credit) };
  return graph.transaction(async (tx) => {
    // A concurrent upload of the same content may have won: answer its asset.
    const stored = await tx.getNode(assetNodeId(id));
    if (stored?.labels.includes(MEDIA_LABEL)) return { asset: toMediaAsset(stored), created: false };
    await tx.createNode({ id: assetNodeId(id), labels: [MEDIA_LABEL], props });
    await tx.appendAudit({
      actor,
      action: credit ? 'media.stock-import' : 'media.upload',
      target: id,
      data: {
        sha256,
        bytes: asset.bytes,
        ...(credit ? { provider: credit.provider, stockId: credit.id } : {}),
      },
    });
    return { asset, created: true };
  });
}

/** Assets newest first, optionally those whose file name contains `q` (case-insensitive). */
export async function listAssets(
  reader: GraphReader,
  { q, limit, offset }: { q?: string; limit: number; offset: number },
): Promise<{ assets: MediaAsset[]; total: number }> {
  const page = await reader.findNodes({
    label: MEDIA_LABEL,
    where: q ? [{ prop: 'filename', op: 'contains', value: q }] : [],
    orderBy: [{ prop: 'uploadedAt', direction: 'desc' }],
    limit,
    offset,
  });
  return { assets: page.nodes.map(toMediaAsset), total: page.total };
}

/**
 * Deletes an asset node (404 when there is none) and its file — unless another site still
 * holds an asset of the same content, since files are shared by content across sites.
 * 409 `in_use` while items show it (asset-holders.ts). With `cascade`, the image fields of the
 * items that show it are cleared (a new version of each, audited) in the same transaction;
 * items whose field is required, or whose live version shows it, still refuse the delete.
 */
export async function deleteAsset({
  graph,
  engine,
  platform,
  dataDir,
  files = localMediaFiles(dataDir),
  id,
  cascade = false,
  actor,
}: {
  graph: Graph;
  engine: GraphEngine;
  platform: Graph;
  dataDir: string;
  /** where the file is (default: `<dataDir>/media/assets/`) */
  files?: MediaFiles;
  id: string;
  cascade?: boolean;
  actor: string;
}): Promise<void> {
  const asset = await graph.transaction(async (tx) => {
    const node = await tx.getNode(assetNodeId(id));
    if (!node?.labels.includes(MEDIA_LABEL))
      throw TrellisError.of('not_found', { resource: `Asset \`${id}\`` });
    const uses = await findAssetUses(tx, id);
    assertDeletable({
      resource: `Asset \`${id}\``,
      holders: assetHolders(uses),
      cascade,
      cascadeDoes: `clear it from the image fields of the ${uses.items.length} item(s) that show it`,
    });
    const cleared: string[] = [];
    if (cascade) {
      for (const use of uses.items) {
        await clearFieldsIn(tx, {
          type: use.type,
          id: use.itemId,
          fields: use.fields,
          actor,
          auditData: { cascadeOf: id },
        });
        cleared.push(use.itemId);
      }
    }
    await tx.deleteNode(node.id);
    await tx.appendAudit({
      actor,
      action: 'media.delete',
      target: id,
      data: { sha256: node.props.sha256, ...(cleared.length > 0 ? { cascade: true, cleared } : {}) },
    });
    return toMediaAsset(node);
  });
  for (const site of await listSites(platform)) {
    if (site.graphName === graph.name) continue;
    const other = await engine.openGraph(site.graphName);
    if ((await other?.getNode(assetNodeId(id)))?.labels.includes(MEDIA_LABEL)) return;
  }
  await files.remove(asset.url.slice('/media/assets/'.length));
}
