import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let miniSearchBrowser: string | null = null;

/** MiniSearch's browser (UMD) build, shipped as `search/minisearch.js` beside `search.js`. */
export function miniSearchBrowserBuild(): string {
  if (miniSearchBrowser === null) {
    const require = createRequire(import.meta.url);
    const main = require.resolve('minisearch');
    const umd = main.replace(/dist[\\/]cjs[\\/]index\.cjs$/, 'dist/umd/index.js');
    miniSearchBrowser = readFileSync(umd, 'utf8');
  }
  return miniSearchBrowser;
}

/**
 * `search/search.js`: loads MiniSearch and the index shards on first use and wires every
 * `<form data-trellis-search>` on the page: its `input[name=q]` searches, results go into the
 * form's `[data-results]` element (or one added after the form) as links to the pages.
 * `window.trellisSearch(query, options?)` resolves to `[{id, url, title, type, score}]`.
 *
 * With a vector index (`searchEmission: bm25+vector`) the ranking is hybrid: the BM25 ranking
 * and the ranking by cosine similarity to the query's vector are fused (reciprocal rank
 * fusion), so a page whose words the BM25 index does not hold can still be found. The query's
 * vector is the hashed bag of words of the query when the embeddings are `hashed-bow` (the same
 * function as core's `hashedBagOfWords`), else the mean of the vectors of the best BM25 hits.
 * `options.mode`: `hybrid` (the default with vectors), `bm25` or `vector`.
 */
export const SEARCH_SCRIPT = `(function () {
  var script = document.currentScript;
  var base = script ? script.src.replace(/[^/]*$/, '') : '/search/';
  // the site's root, wherever it is served (a domain, a sub-path, the server's preview)
  var root = base.replace(/search[/]$/, '');
  var prefix = '';
  function href(url) {
    if (typeof url !== 'string' || url.charAt(0) !== '/') return url;
    if (prefix && url.indexOf(prefix + '/') === 0) url = url.slice(prefix.length);
    return root + url.slice(1);
  }
  var loading = null;
  function load() {
    if (loading) return loading;
    loading = new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = base + 'minisearch.js';
      s.onload = resolve;
      s.onerror = reject;
      document.head.appendChild(s);
    }).then(function () {
      return fetch(base + 'manifest.json').then(function (r) { return r.json(); });
    }).then(function (manifest) {
      prefix = typeof manifest.base === 'string' ? manifest.base : '';
      var shards = Promise.all(manifest.shards.map(function (file) {
        return fetch(base + file).then(function (r) { return r.text(); }).then(function (json) {
          return MiniSearch.loadJSON(json, manifest.options);
        });
      }));
      var vectors = Promise.all((manifest.vectors || []).map(function (file) {
        return fetch(base + file).then(function (r) { return r.json(); });
      })).then(function (parts) {
        var all = {};
        parts.forEach(function (part) { for (var id in part) all[id] = part[id]; });
        return all;
      });
      return Promise.all([shards, vectors]).then(function (loaded) {
        return { manifest: manifest, shards: loaded[0], vectors: loaded[1], hasVectors: (manifest.vectors || []).length > 0 };
      });
    });
    return loading;
  }
  function fnv1a(text) {
    var hash = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) { hash ^= text.charCodeAt(i); hash = Math.imul(hash, 0x01000193); }
    return hash >>> 0;
  }
  // core's hashedBagOfWords: hashed word counts (1 + ln tf) with a hash sign, L2-normalised
  function hashedBagOfWords(text, dimensions) {
    var folded = text.normalize('NFKD').replace(/[\\u0300-\\u036f]/g, '').toLowerCase();
    var tokens = (folded.match(/[\\p{L}\\p{N}]+/gu) || []).filter(function (t) { return t.length >= 2; });
    var counts = {};
    tokens.forEach(function (t) { counts[t] = (counts[t] || 0) + 1; });
    var vector = new Array(dimensions).fill(0);
    for (var token in counts) {
      var hash = fnv1a(token);
      var slot = hash % dimensions;
      var sign = (hash >>> 31) & 1 ? -1 : 1;
      vector[slot] += sign * (1 + Math.log(counts[token]));
    }
    var norm = Math.sqrt(vector.reduce(function (sum, v) { return sum + v * v; }, 0));
    if (norm === 0) return null;
    return vector.map(function (v) { return v / norm; });
  }
  function cosine(a, b) {
    if (!a || !b || a.length !== b.length) return 0;
    var dot = 0, na = 0, nb = 0;
    for (var i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
    return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
  }
  function queryVector(index, query, lexical) {
    var embedding = index.manifest.embedding;
    if (embedding && embedding.provider === 'hashed-bow') return hashedBagOfWords(query, embedding.dimensions);
    // any other provider: the mean of the vectors of the best BM25 hits
    var top = lexical.slice(0, 3).map(function (r) { return index.vectors[r.id]; }).filter(Boolean);
    if (!top.length) return null;
    var mean = new Array(top[0].length).fill(0);
    top.forEach(function (v) { for (var i = 0; i < mean.length; i++) mean[i] += v[i] / top.length; });
    return mean;
  }
  function stored(index, id) {
    for (var i = 0; i < index.shards.length; i++) {
      var fields = index.shards[i].getStoredFields(id);
      if (fields) return fields;
    }
    return null;
  }
  function search(query, options) {
    var mode = (options && options.mode) || 'hybrid';
    return load().then(function (index) {
      var lexical = [];
      index.shards.forEach(function (shard) {
        lexical = lexical.concat(shard.search(query, { prefix: true, fuzzy: 0.2, boost: { title: 2 } }));
      });
      lexical.sort(function (a, b) { return b.score - a.score; });
      var results = lexical;
      if (index.hasVectors && mode !== 'bm25') {
        var q = queryVector(index, query, lexical);
        var semantic = [];
        if (q) {
          for (var id in index.vectors) {
            var score = cosine(q, index.vectors[id]);
            if (score > 0.05) semantic.push({ id: id, score: score });
          }
          semantic.sort(function (a, b) { return b.score - a.score || (a.id < b.id ? -1 : 1); });
        }
        var fused = {};
        var add = function (list, weight) {
          list.forEach(function (r, rank) {
            var entry = fused[r.id] || (fused[r.id] = { id: r.id, score: 0, fields: r.url ? r : null });
            entry.score += weight / (60 + rank + 1);
          });
        };
        if (mode !== 'vector') add(lexical, 1);
        add(semantic, 1);
        results = Object.keys(fused).map(function (id) {
          var entry = fused[id];
          var fields = entry.fields || stored(index, id) || {};
          return { id: id, url: fields.url, title: fields.title, type: fields.type, score: entry.score };
        }).filter(function (r) { return r.url; });
        results.sort(function (a, b) { return b.score - a.score || (a.id < b.id ? -1 : 1); });
      }
      return results.slice(0, 20).map(function (r) { return { id: r.id, url: href(r.url), title: r.title, type: r.type, score: r.score }; });
    });
  }
  window.trellisSearch = search;
  function wire(form) {
    var input = form.querySelector('input[name=q]') || form.querySelector('input');
    var out = form.querySelector('[data-results]');
    if (!out) { out = document.createElement('ul'); out.setAttribute('data-results', ''); form.after(out); }
    var run = function (event) {
      if (event) event.preventDefault();
      var q = input.value.trim();
      if (!q) { out.textContent = ''; return; }
      search(q).then(function (results) {
        out.textContent = '';
        results.forEach(function (r) {
          var li = document.createElement('li');
          var a = document.createElement('a');
          a.href = r.url;
          a.textContent = r.title;
          li.appendChild(a);
          out.appendChild(li);
        });
        if (!results.length) { var li = document.createElement('li'); li.textContent = 'No results'; out.appendChild(li); }
      });
    };
    form.addEventListener('submit', run);
    input.addEventListener('input', run);
  }
  function init() { document.querySelectorAll('form[data-trellis-search]').forEach(wire); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
})();
`;
