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
 * `window.trellisSearch(query)` resolves to `[{id, url, title, type, score}]`.
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
      return Promise.all(manifest.shards.map(function (file) {
        return fetch(base + file).then(function (r) { return r.text(); }).then(function (json) {
          return MiniSearch.loadJSON(json, manifest.options);
        });
      }));
    });
    return loading;
  }
  function search(query) {
    return load().then(function (shards) {
      var all = [];
      shards.forEach(function (index) {
        all = all.concat(index.search(query, { prefix: true, fuzzy: 0.2, boost: { title: 2 } }));
      });
      all.sort(function (a, b) { return b.score - a.score; });
      return all.slice(0, 20).map(function (r) { return { id: r.id, url: href(r.url), title: r.title, type: r.type, score: r.score }; });
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
