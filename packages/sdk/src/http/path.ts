/** Joins path segments under `/api/`, encoding each one (ids such as `site:x` and `post:a b` are safe). */
export function path(...segments: string[]): string {
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}
