import type { Lead } from '@trelliscms/core';

/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, comma or line break. A cell that a
 * spreadsheet would read as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return) is prefixed with `'`, so an exported lead never runs as a formula (OWASP CSV injection).
 */
export function csvCell(value: string | null | undefined): string {
  let text = value ?? '';
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The leads as CSV: a header row, then one row per lead with `id`, `createdAt`, `name`,
 * `email`, `message`, `pageUrl`, `origin` and one column per extra field any lead has (sorted
 * by name). Lines end with CRLF.
 */
export function leadsCsv(leads: readonly Lead[]): string {
  const extra = [...new Set(leads.flatMap((lead) => Object.keys(lead.fields)))].sort();
  const fixed = ['id', 'createdAt', 'name', 'email', 'message', 'pageUrl', 'origin'] as const;
  const rows = [[...fixed, ...extra].map(csvCell).join(',')];
  for (const lead of leads) {
    const cells = [...fixed.map((key) => lead[key]), ...extra.map((name) => lead.fields[name])];
    rows.push(cells.map(csvCell).join(','));
  }
  return `${rows.join('\r\n')}\r\n`;
}
