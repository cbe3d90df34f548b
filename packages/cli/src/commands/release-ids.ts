/** The full id `<prefix>:<name>` from either the full id or the bare name. */
function withPrefix(prefix: string, value: string): string {
  return value.startsWith(`${prefix}:`) ? value : `${prefix}:${value}`;
}

/** `prod` or `env:prod` as the environment id `env:prod`. */
export function toEnvironmentId(name: string): string {
  return withPrefix('env', name);
}

/** `spring` or `release:spring` as the release id `release:spring`. */
export function toReleaseId(name: string): string {
  return withPrefix('release', name);
}

/** `2026…-ab12` or `deploy:2026…-ab12` as the deployment id `deploy:…`. */
export function toDeploymentId(id: string): string {
  return withPrefix('deploy', id);
}

/** A comma-separated list of names (`a,b, c`) as release ids, empty entries left out. */
export function toReleaseIds(list: string): string[] {
  return list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0)
    .map(toReleaseId);
}
