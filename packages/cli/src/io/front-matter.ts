/** A document's front matter (YAML between `---` lines at its start) and the text after it. */
export interface FrontMatterDocument {
  data: Record<string, unknown>;
  body: string;
}

type Line = { indent: number; text: string; number: number };

/**
 * Splits a Markdown or template file into its front matter and body. The front matter is read as
 * the YAML that Eleventy sites write in practice: `key: value` pairs, nested maps by
 * indentation, lists as `- item` lines or `[a, b]`, quoted or plain scalars (`true`, `false`,
 * `null`, numbers; anything else, dates too, stays text). Anchors, multi-line strings (`|`,
 * `>`) and flow maps are not read (a `|` or `>` block is taken as its lines joined). Throws on
 * a line it cannot place, naming it.
 */
export function parseFrontMatter(source: string): FrontMatterDocument {
  const text = source.replace(/^\uFEFF/, '');
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { data: {}, body: text };
  const lines: Line[] = [];
  match[1]!.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) return;
    lines.push({ indent: raw.length - raw.trimStart().length, text: raw.trim(), number: index + 2 });
  });
  const state = { at: 0 };
  const data = lines.length === 0 ? {} : parseBlock(lines, state, lines[0]!.indent);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error('the front matter is not a map of keys to values');
  }
  return { data: data as Record<string, unknown>, body: text.slice(match[0].length) };
}

function parseBlock(lines: Line[], state: { at: number }, indent: number): unknown {
  const first = lines[state.at]!;
  if (first.text.startsWith('- ') || first.text === '-') {
    const list: unknown[] = [];
    while (
      state.at < lines.length &&
      lines[state.at]!.indent === indent &&
      lines[state.at]!.text.startsWith('-')
    ) {
      const item = lines[state.at]!.text.replace(/^-\s*/, '');
      state.at++;
      if (item === '') list.push(nested(lines, state, indent));
      else list.push(scalar(item));
    }
    return list;
  }
  const map: Record<string, unknown> = {};
  while (state.at < lines.length && lines[state.at]!.indent === indent) {
    const line = lines[state.at]!;
    const pair = /^("[^"]*"|'[^']*'|[^:]+?)\s*:(?:\s+(.*)|\s*)$/.exec(line.text);
    if (!pair) throw new Error(`front matter line ${line.number} is not "key: value": ${line.text}`);
    const key = unquote(pair[1]!);
    const value = pair[2]?.trim() ?? '';
    state.at++;
    if (value === '' || value === '|' || value === '>' || value === '|-' || value === '>-') {
      map[key] =
        value.startsWith('|') || value.startsWith('>')
          ? blockText(lines, state, indent)
          : nested(lines, state, indent);
    } else {
      map[key] = scalar(value);
    }
  }
  if (state.at < lines.length && lines[state.at]!.indent > indent) {
    throw new Error(`front matter line ${lines[state.at]!.number} is indented more than its key allows`);
  }
  return map;
}

function nested(lines: Line[], state: { at: number }, indent: number): unknown {
  const next = lines[state.at];
  if (!next) return null;
  // a list may sit at its key's own indentation (`tags:\n- a`)
  if (next.indent > indent || (next.indent === indent && next.text.startsWith('-'))) {
    return parseBlock(lines, state, next.indent);
  }
  return null;
}

function blockText(lines: Line[], state: { at: number }, indent: number): string {
  const parts: string[] = [];
  while (state.at < lines.length && lines[state.at]!.indent > indent) parts.push(lines[state.at++]!.text);
  return parts.join('\n');
}

function unquote(text: string): string {
  if (
    text.length >= 2 &&
    ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))
  ) {
    const inner = text.slice(1, -1);
    return text.startsWith("'")
      ? inner.replace(/''/g, "'")
      : inner.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return text;
}

function splitFlow(inner: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i]!;
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === ',') {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function scalar(raw: string): unknown {
  const text = raw.replace(/\s+#.*$/, '').trim();
  if (text.startsWith('[') && text.endsWith(']')) return splitFlow(text.slice(1, -1)).map(scalar);
  if (text.startsWith('"') || text.startsWith("'")) return unquote(text);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null' || text === '~') return null;
  if (/^-?\d+(\.\d+)?$/.test(text) && String(Number(text)) === text) return Number(text);
  return text;
}
