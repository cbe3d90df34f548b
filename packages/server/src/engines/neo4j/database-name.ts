import { sha256Hex } from '@trelliscms/core';

/**
 * The Enterprise database of a graph. Neo4j database names are case-insensitive, 3 to 63
 * characters of lowercase letters, digits, `.` and `-`, starting with a letter, so the graph
 * name is lowercased and shortened and a hash of the exact name keeps two graphs that differ
 * only in case or `-`/`_` apart: `trellis-<slug>-<hash8>`.
 */
export function databaseName(graph: string): string {
  const slug = graph
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `trellis-${slug ? `${slug}-` : ''}${sha256Hex(graph).slice(0, 8)}`;
}
