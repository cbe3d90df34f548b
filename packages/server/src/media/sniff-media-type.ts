/** A media type recognised from a file's first bytes. */
export interface SniffedType {
  mimetype: string;
  /** The file extension assets of this type are stored under. */
  ext: string;
  kind: 'image' | 'video' | 'pdf';
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, index) => bytes[offset + index] === byte);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

const FTYP_BRANDS: Readonly<Record<string, SniffedType>> = {
  avif: { mimetype: 'image/avif', ext: 'avif', kind: 'image' },
  avis: { mimetype: 'image/avif', ext: 'avif', kind: 'image' },
  'qt  ': { mimetype: 'video/quicktime', ext: 'mov', kind: 'video' },
};

/**
 * The media type of a file from its magic bytes (never from the declared mimetype or name):
 * PNG, JPEG, GIF, WebP, AVIF, BMP, TIFF images; MP4, QuickTime, WebM/Matroska, AVI, Ogg
 * videos; PDF. Null for anything else — SVG and HTML among them, since a file served from
 * this origin must not run script.
 */
export function sniffMediaType(bytes: Uint8Array): SniffedType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { mimetype: 'image/png', ext: 'png', kind: 'image' };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { mimetype: 'image/jpeg', ext: 'jpg', kind: 'image' };
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') {
    return { mimetype: 'image/gif', ext: 'gif', kind: 'image' };
  }
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') {
    return { mimetype: 'image/webp', ext: 'webp', kind: 'image' };
  }
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'AVI ') {
    return { mimetype: 'video/x-msvideo', ext: 'avi', kind: 'video' };
  }
  if (ascii(bytes, 0, 2) === 'BM' && bytes.length >= 26)
    return { mimetype: 'image/bmp', ext: 'bmp', kind: 'image' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { mimetype: 'image/tiff', ext: 'tiff', kind: 'image' };
  }
  if (ascii(bytes, 0, 5) === '%PDF-') return { mimetype: 'application/pdf', ext: 'pdf', kind: 'pdf' };
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) {
    const head = ascii(bytes, 0, Math.min(bytes.length, 64));
    return head.includes('webm')
      ? { mimetype: 'video/webm', ext: 'webm', kind: 'video' }
      : { mimetype: 'video/x-matroska', ext: 'mkv', kind: 'video' };
  }
  if (ascii(bytes, 0, 4) === 'OggS') return { mimetype: 'video/ogg', ext: 'ogv', kind: 'video' };
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const brand = ascii(bytes, 8, 12);
    return FTYP_BRANDS[brand] ?? { mimetype: 'video/mp4', ext: 'mp4', kind: 'video' };
  }
  return null;
}

/** The Content-Type a stored asset is served with, by its extension; null for one never stored. */
export function mimetypeOfExtension(ext: string): string | null {
  const byExt: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    avif: 'image/avif',
    bmp: 'image/bmp',
    tiff: 'image/tiff',
    pdf: 'application/pdf',
    webm: 'video/webm',
    mkv: 'video/x-matroska',
    ogv: 'video/ogg',
    mp4: 'video/mp4',
    mov: 'video/quicktime',
    avi: 'video/x-msvideo',
  };
  return byExt[ext.toLowerCase()] ?? null;
}
