import { UsageError } from '../errors';
import type { TextSource } from './cli-io';

/** `process.stdin` as a {@link TextSource}; the secret prompt writes to `process.stderr`. */
export function processStdin(): TextSource {
  const stdin = process.stdin;
  return {
    isTTY: stdin.isTTY === true,
    readAll: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
      return Buffer.concat(chunks).toString('utf8');
    },
    readSecret: (prompt) =>
      new Promise<string>((resolve, reject) => {
        process.stderr.write(prompt);
        let answer = '';
        const done = (error?: Error) => {
          stdin.off('data', onData);
          stdin.setRawMode?.(false);
          stdin.pause();
          process.stderr.write('\n');
          if (error) reject(error);
          else resolve(answer);
        };
        const onData = (chunk: Buffer) => {
          for (const char of chunk.toString('utf8')) {
            if (char === '\r' || char === '\n' || char === '\u0004') return done();
            if (char === '\u0003') return done(new UsageError('Cancelled: no key was entered.'));
            if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
            else answer += char;
          }
        };
        stdin.setRawMode?.(true);
        stdin.resume();
        stdin.on('data', onData);
      }),
  };
}
