import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** docs/benchmarks.md: each benchmark owns one section between `<!-- bench:<name>:start/end -->`. */
export const benchmarksDoc = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));

function markers(name: string): { start: string; end: string } {
  return { start: `<!-- bench:${name}:start -->`, end: `<!-- bench:${name}:end -->` };
}

function read(): string {
  return existsSync(benchmarksDoc) ? readFileSync(benchmarksDoc, 'utf8') : '# Benchmarks\n';
}

/** The current text of a benchmark's section (without its end marker), or '' when it has none. */
export function readDocSection(name: string): string {
  const { start, end } = markers(name);
  const existing = read();
  const startAt = existing.indexOf(start);
  const endAt = existing.indexOf(end);
  return startAt >= 0 && endAt > startAt ? existing.slice(startAt, endAt) : '';
}

/** Replaces a benchmark's section with `lines` (markers added), leaving the other sections as they are. */
export function writeDocSection(name: string, lines: string[]): void {
  const { start, end } = markers(name);
  const existing = read();
  const startAt = existing.indexOf(start);
  const endAt = existing.indexOf(end);
  const section = [start, ...lines, end].join('\n');
  const updated =
    startAt >= 0 && endAt > startAt
      ? existing.slice(0, startAt) + section + existing.slice(endAt + end.length)
      : `${existing.trimEnd()}\n\n${section}\n`;
  writeFileSync(benchmarksDoc, updated);
}

/** The machine's CPU counters from /proc/stat (Linux), to tell how much time the hypervisor took. */
export function cpuTicks(): { steal: number; total: number } | null {
  try {
    const fields =
      readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    if (fields.length < 8) return null;
    return { steal: fields[7] ?? 0, total: fields.reduce((sum, n) => sum + n, 0) };
  } catch {
    return null;
  }
}

/** The share of CPU time the hypervisor stole between two {@link cpuTicks} readings, as "n %". */
export function stealBetween(from: ReturnType<typeof cpuTicks>, to: ReturnType<typeof cpuTicks>): string {
  if (from === null || to === null || to.total <= from.total) return 'unknown';
  return `${(((to.steal - from.steal) / (to.total - from.total)) * 100).toFixed(1)} %`;
}
