import { describe, expect, it } from 'vitest';
import { mimetypeOfExtension, sniffMediaType } from './sniff-media-type';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );

describe('sniffMediaType', () => {
  it('recognises images, videos and PDFs by their magic bytes', () => {
    const cases: Array<[Buffer, string]> = [
      [bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest'), 'image/png'],
      [bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), 'image/jpeg'],
      [bytes('GIF89a', [1, 0, 1, 0]), 'image/gif'],
      [bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
      [bytes([0, 0, 0, 0x1c], 'ftypavif'), 'image/avif'],
      [bytes([0, 0, 0, 0x18], 'ftypisom'), 'video/mp4'],
      [bytes([0, 0, 0, 0x14], 'ftypqt  '), 'video/quicktime'],
      [bytes([0x1a, 0x45, 0xdf, 0xa3], 'B\u0082\u0084webm'), 'video/webm'],
      [bytes('RIFF', [0, 0, 0, 0], 'AVI LIST'), 'video/x-msvideo'],
      [bytes('%PDF-1.7'), 'application/pdf'],
    ];
    for (const [content, mimetype] of cases)
      expect(sniffMediaType(content)?.mimetype, mimetype).toBe(mimetype);
  });

  it('refuses text, HTML, SVG, executables and empty files', () => {
    for (const content of [
      bytes('hello'),
      bytes('<!doctype html><script>'),
      bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      bytes('MZ', [0x90, 0]),
      bytes([0x7f], 'ELF'),
      bytes(''),
    ]) {
      expect(sniffMediaType(content)).toBeNull();
    }
  });

  it('serves only the extensions it stores', () => {
    expect(mimetypeOfExtension('PNG')).toBe('image/png');
    expect(mimetypeOfExtension('html')).toBeNull();
    expect(mimetypeOfExtension('svg')).toBeNull();
  });
});
