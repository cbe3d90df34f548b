/**
 * Server messages and hints that name an HTTP call, and the `cms` command that does the same.
 * The server speaks to every client; the CLI tells its user what to type.
 */
const REWRITES: [RegExp, string][] = [
  [/PUT \/api\/releases\/environments\/env:<name>/g, 'cms envs set <name>'],
  [/GET \/api\/releases\/environments/g, 'cms envs list'],
  [/POST \/api\/releases\/\{id\}\/transition \{"state":"pending"\}/g, 'cms releases submit <release>'],
  [/GET \/api\/releases\/deployments/g, 'cms deployments list'],
  [/GET \/api\/releases\/queue/g, 'cms queue'],
  [/GET \/api\/releases/g, 'cms releases list'],
  [/GET \/api\/build\/history/g, 'cms builds history'],
  [/GET \/api\/build\/status\/\{?(\w+)\}?/g, 'cms builds status <$1>'],
  [/GET \/api\/health\/detail/g, 'cms health --detail'],
  [/GET \/api\/health/g, 'cms health'],
  [/GET \/api\/types/g, 'cms types list'],
  [/GET \/api\/templates/g, 'cms templates list'],
  [/GET \/api\/routes/g, 'cms routes list'],
  [/GET \/api\/media/g, 'cms media list'],
  [/GET \/api\/sites/g, 'cms sites list'],
  [/GET \/api\/access\/my-sites/g, 'cms whoami'],
  [/GET \/api\/auth\/api-keys/g, 'cms keys list'],
  [/GET \/api\/auth\/users/g, 'cms members list'],
  [/GET \/api\/audit\/verify/g, 'cms audit verify'],
  [/POST \/api\/maintenance\/embeddings\/materialize(\?type=\w+)?/g, 'cms maintenance embeddings <type>'],
  [/GET \/api\/openapi\.json/g, 'cms --help'],
];

/** `text` with the HTTP calls it names replaced by the `cms` commands that make them. */
export function inCmsTerms(text: string): string {
  return REWRITES.reduce((result, [pattern, replacement]) => result.replace(pattern, replacement), text);
}
