import { searchWords } from '../shared/search-text';

// Every character the classic Lucene query parser treats as syntax, plus whitespace.
const LUCENE_SYNTAX = /[+\-&|!(){}[\]^"~*?:\\/\s]/g;

/** Escapes `text` so the Lucene query parser reads it as one literal term. */
export function escapeLucene(text: string): string {
  return text.replace(LUCENE_SYNTAX, (char) => `\\${char}`);
}

/**
 * The words the full-text index holds for `text`, and the words of a `q`: `searchWords`
 * after folding diacritics away (`café` -> `cafe`), as the embedded engine's FTS5
 * `unicode61 remove_diacritics` tokenizer does. The index uses Lucene's whitespace analyzer,
 * so these words are exactly its terms.
 */
export function textTerms(text: string): string[] {
  return searchWords(text.normalize('NFD').replace(/\p{M}/gu, ''));
}

/** Lucene's default limit on the clauses of one boolean query. */
export const MAX_QUERY_TERMS = 1000;

/**
 * The Lucene query for `q` within one graph: every word of `q` required in the `ft` field and
 * the graph's name required in the `ftg` field (one term per node, so it adds the same score
 * to every hit and does not change the ranking). Null when `q` has no words.
 */
export function luceneQuery({ graph, q }: { graph: string; q: string }): string | null {
  const terms = [...new Set(textTerms(q))].slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return null;
  return [`+ftg:${escapeLucene(graph)}`, ...terms.map((term) => `+ft:${escapeLucene(term)}`)].join(' ');
}
