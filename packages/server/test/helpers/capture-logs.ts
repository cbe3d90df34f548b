import { PassThrough } from 'node:stream';

/** A log stream for `startTestPlatform({ logStream })` and the JSON lines written to it. */
export function captureLogs(): {
  stream: PassThrough;
  lines: () => Array<Record<string, unknown>>;
  raw: () => string;
} {
  const stream = new PassThrough();
  let raw = '';
  stream.on('data', (chunk: Buffer) => {
    raw += chunk.toString('utf8');
  });
  return {
    stream,
    raw: () => raw,
    lines: () =>
      raw
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
