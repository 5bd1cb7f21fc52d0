/* kbtool site search: the index under search/, queried in the browser.
 *
 * A port, function by function, of kbtool/search/tokens.py, index.py, matching.py, priors.py,
 * engine.py and excerpt.py, so that `kbtool search` and this page list the same pages in the same
 * order. Index files are scripts that call __kbSearch(name, data): loading them with
 * <script> works from a static host and from a folder opened in the browser (file://), where
 * fetch() of local files does not. A query loads meta.js, priors.js, the shards of its terms, long
 * posting lists of their own (their positions only when adjacency needs them), the page
 * files (d/<n>.js) of the results on screen, and the update segment (x/), if any.
 *
 * Everything is put on the page with textContent: titles and excerpts come from pages and
 * are never parsed as HTML.
 */
(() => {
  "use strict";

  const script = document.currentScript;
  // search.js is <site>/assets/search.js: the site root is one folder up, wherever it is hosted.
  const ROOT = new URL("../", script ? script.src : location.href);
  const SUGGEST = 8; // results under the search box
  const PAGE = 10; // results per "more" on search.html

  // -- the index files ----------------------------------------------------------------------

  const files = new Map(); // name -> Promise of its data (null when the file is missing)
  const waiting = new Map(); // name -> resolve
  window.__kbSearch = (name, data) => {
    const resolve = waiting.get(name);
    waiting.delete(name);
    if (resolve) resolve(data);
  };

  function load(name) {
    if (!files.has(name)) {
      files.set(
        name,
        new Promise((resolve) => {
          waiting.set(name, resolve);
          const tag = document.createElement("script");
          tag.src = new URL(`search/${name}.js`, ROOT).href;
          tag.async = true;
          tag.onload = () => {
            tag.remove();
            if (waiting.delete(name)) resolve(null); // the file did not register its data
          };
          tag.onerror = () => {
            tag.remove();
            waiting.delete(name);
            resolve(null);
          };
          document.head.append(tag);
        }),
      );
    }
    return files.get(name);
  }

  // -- tokens.py ----------------------------------------------------------------------------

  const CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af";
  const CJK_CHAR = new RegExp(`^[${CJK}]`);
  const TOKEN = () => new RegExp(`([${CJK}]+)|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, "gu");
  const WORD_CHAR = new RegExp(`^(?![${CJK}])[\\p{L}\\p{N}]`, "u");
  const QUOTES = /["\u201c\u201d]/;
  const MAX_QUERY = 200;
  const MAX_PARTS = 12;
  const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

  function normalise(text) {
    text = text.replace(LONE, "\ufffd");
    const lower = text.toLowerCase();
    if (lower.length === text.length) return lower;
    return Array.from(text, (c) => (c.toLowerCase().length === c.length ? c.toLowerCase() : c)).join("");
  }

  const titleKey = (title) => "=" + normalise(title).split(/\s+/).filter(Boolean).join(" ");
  const SHORT_KEY = "^";

  /** Offsets of the bigrams that pin down a run: every other one, and the last. */
  function cover(length) {
    const offsets = [];
    for (let i = 0; i < Math.max(length - 1, 1); i += 2) offsets.push(i);
    if (length > 2 && offsets[offsets.length - 1] !== length - 2) offsets.push(length - 2);
    return offsets;
  }

  const FILTER = /^(type|tag):(\S+)$/u;
  const filterTerm = (kind, value) => `${kind}:${normalise(value).split(/\s+/).filter(Boolean).join(" ")}`;

  function part(text, prefixLast) {
    const elements = [];
    const needles = [];
    let pos = 0;
    let runs = 0;
    for (const m of text.matchAll(TOKEN())) {
      const run = m[1];
      if (run === undefined) {
        elements.push({ offset: pos, terms: [m[0]], prefix: "" });
        needles.push(m[0]);
        pos += 1;
      } else {
        for (const i of cover(run.length)) {
          elements.push({ offset: pos + i, terms: [run.length > 1 ? run.slice(i, i + 2) : run], prefix: "" });
        }
        needles.push(run);
        pos += run.length + 1;
        runs += 1;
      }
    }
    if (!elements.length) return null;
    const last = elements[elements.length - 1];
    const word = last.terms[0];
    if (prefixLast && !CJK_CHAR.test(word) && Array.from(word).length >= 2) last.prefix = word;
    const near = runs === 1 && needles.length === 1 && elements.length > 1;
    const chars = near ? Array.from(needles[0]) : [];
    const grams = [...new Set(chars.slice(1).map((c, i) => chars[i] + c))];
    return { elements, needles, near, grams };
  }

  /** [piece, quoted] of a query: its whitespace-separated pieces, a quoted phrase one. */
  function pieces(text) {
    const out = [];
    text.split(QUOTES).forEach((chunk, i) => {
      if (i % 2) out.push([chunk, true]);
      else for (const p of chunk.split(/\s+/)) out.push([p, false]);
    });
    return out.filter(([p]) => p.trim()).slice(0, MAX_PARTS);
  }

  function parseQuery(raw) {
    const text = normalise(Array.from(raw).slice(0, MAX_QUERY).join(""));
    const end = text.slice(-1);
    const typing = text.length > 0 && !/\s/.test(end) && !QUOTES.test(end);
    const all = pieces(text);
    const query = { text, words: [], phrases: [], excluded: [], filters: new Map(), unwanted: [] };
    all.forEach(([piece, quoted], i) => {
      const negative = !quoted && piece.startsWith("-");
      const body = negative ? piece.slice(1) : piece;
      const wanted = quoted ? null : body.match(FILTER);
      if (wanted) {
        const term = filterTerm(wanted[1], wanted[2]);
        if (negative) query.unwanted.push(term);
        else {
          if (!query.filters.has(wanted[1])) query.filters.set(wanted[1], []);
          query.filters.get(wanted[1]).push(term);
        }
        return;
      }
      const p = part(body, typing && !negative && !quoted && i === all.length - 1);
      if (p) (negative ? query.excluded : quoted ? query.phrases : query.words).push(p);
    });
    // filters in the order of their names, as in tokens.py
    query.filters = [...query.filters.keys()].sort().map((kind) => query.filters.get(kind));
    const rest = all.filter(([p, quoted]) => quoted || !(p.startsWith("-") || FILTER.test(p)));
    query.title = titleKey(rest.map(([p]) => p).join(" "));
    query.parts = [...query.words, ...query.phrases];
    query.empty = !(query.words.length || query.phrases.length || query.filters.length);
    return query;
  }

  // -- codec.py, postings.py ----------------------------------------------------------------

  const MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef";
  const FINAL = "ghijklmnopqrstuvwxyz0123456789-_";
  const VALUE = new Map();
  for (let i = 0; i < 32; i++) VALUE.set(MORE[i], [i, false]).set(FINAL[i], [i, true]);

  function decode(text) {
    const out = [];
    let value = 0;
    for (const c of text) {
      const [digit, final] = VALUE.get(c);
      value = value * 32 + digit;
      if (final) {
        out.push(value);
        value = 0;
      }
    }
    return out;
  }

  function fnv1a(text) {
    let h = 0x811c9dc5;
    for (const c of text) h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0;
    return h;
  }

  const shardOf = (term, shards) => (fnv1a(term) & (shards - 1)).toString(16);

  /** A posting list's heads -> [{doc, weight, count}, ...] (postings.py: Heads). */
  function decodeHeads(text) {
    const n = decode(text);
    const out = [];
    let doc = -1;
    for (let i = 0; i + 2 < n.length; i += 3) out.push({ doc: (doc += n[i]), weight: n[i + 1], count: n[i + 2] });
    return out;
  }

  /** Heads and (unless null) their positions -> Map(page id -> {weight, positions}). */
  function entriesOf(heads, places) {
    const n = places ? decode(places) : [];
    const out = new Map();
    let at = 0;
    for (const { doc, weight, count } of heads) {
      const positions = [];
      if (places && count) {
        let pos = 0;
        for (let k = 0; k < count; k++) positions.push((pos += n[at + k]));
        at += count;
      }
      out.set(doc, { weight, positions });
    }
    return out;
  }

  /** A list kept whole, "heads~positions". */
  function decodeEntries(text) {
    const cut = text.indexOf("~");
    return entriesOf(decodeHeads(cut < 0 ? text : text.slice(0, cut)), cut < 0 ? "" : text.slice(cut + 1));
  }

  // -- engine.py ----------------------------------------------------------------------------

  const SCALE = 32;
  const MAX_EXPANSIONS = 40;
  const lists = new Map(); // term -> Promise of Map

  /** Map(page id -> entry) of a term; a long list's positions only if asked for. */
  function postings(meta, term, positions = false) {
    const key = (positions ? "+" : "") + term;
    if (!positions && lists.has("+" + term)) return lists.get("+" + term);
    if (!lists.has(key)) {
      lists.set(
        key,
        (async () => {
          const shard = (await load("s/" + shardOf(term, meta.shards))) || {};
          const posting = Object.prototype.hasOwnProperty.call(shard, term) ? shard[term] : null;
          let entries = new Map();
          if (typeof posting === "string" && posting.startsWith("@")) {
            const [heads, places] = await Promise.all([
              load("t/" + posting.slice(1)),
              positions ? load("p/" + posting.slice(1)) : null,
            ]);
            if (typeof heads === "string") entries = entriesOf(decodeHeads(heads), positions ? places : null);
          } else if (typeof posting === "string") {
            entries = decodeEntries(posting);
          }
          if (meta.delta) {
            // The update segment: pages edited since the main shards were written.
            if (!meta.deadSet) meta.deadSet = new Set(meta.delta.dead);
            for (const doc of [...entries.keys()]) if (meta.deadSet.has(doc)) entries.delete(doc);
            const segment = (await load("x/" + shardOf(term, meta.delta.shards))) || {};
            if (typeof segment[term] === "string" && Object.prototype.hasOwnProperty.call(segment, term)) {
              for (const [doc, entry] of decodeEntries(segment[term])) entries.set(doc, entry);
            }
          }
          return entries;
        })(),
      );
    }
    return lists.get(key);
  }

  async function wordsOf(meta, prefix) {
    const main = (await load("w/" + shardOf(Array.from(prefix).slice(0, 2).join(""), meta.vocab))) || {};
    const words = new Map(Object.entries(main));
    if (meta.delta) {
      const added = (await load("x/words")) || {};
      for (const [word, count] of Object.entries(added)) words.set(word, (words.get(word) || 0) + count);
    }
    return words;
  }

  const commonest = (words) => (a, b) => words.get(b) - words.get(a) || (a < b ? -1 : a > b ? 1 : 0);

  async function expand(meta, prefix) {
    const words = await wordsOf(meta, prefix);
    // An update's counts may take a word's pages down to none: it is then not indexed.
    const found = [...words.keys()].filter((w) => w.startsWith(prefix) && words.get(w) > 0);
    found.sort(commonest(words));
    return found.slice(0, MAX_EXPANSIONS);
  }

  /** b is a with one character changed, added or removed, or two neighbours swapped. */
  function oneEdit(x, y) {
    const [a, b] = [Array.from(x), Array.from(y)];
    if (x === y || Math.abs(a.length - b.length) > 1) return false;
    let i = 0;
    while (i < Math.min(a.length, b.length) && a[i] === b[i]) i += 1;
    const rest = (s, k) => s.slice(k).join("");
    if (a.length === b.length) {
      const swapped = i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i];
      return rest(a, i + 1) === rest(b, i + 1) || (swapped && rest(a, i + 2) === rest(b, i + 2));
    }
    return a.length < b.length ? rest(a, i) === rest(b, i + 1) : rest(a, i + 1) === rest(b, i);
  }

  const FUZZY_LENGTH = 4;
  const FUZZY_WORDS = 5;

  async function similar(meta, word) {
    const words = await wordsOf(meta, word);
    const found = [...words.keys()].filter((w) => words.get(w) > 0 && oneEdit(word, w));
    found.sort(commonest(words));
    return found.slice(0, FUZZY_WORDS);
  }

  function idf(pages, having) {
    const value = Math.log(1 + (pages - having + 0.5) / (having + 0.5));
    return Math.floor(value * 1e6 + 0.5) / 1e6;
  }

  /** [terms, asOne]: the terms that stand for an element, and whether they count as one
   * (a prefix's words, or a misspelt word's). */
  async function termsOf(meta, element) {
    const word = element.terms[0];
    let terms = element.terms;
    if (element.prefix) {
      const expanded = await expand(meta, element.prefix);
      terms = expanded.includes(element.prefix) ? expanded : [element.prefix, ...expanded];
    }
    const fuzzy = Array.from(word).length >= FUZZY_LENGTH && !CJK_CHAR.test(word) && !word.includes(":");
    if (fuzzy) {
      const lists = await Promise.all(terms.map((t) => postings(meta, t)));
      if (!lists.some((l) => l.size)) return [await similar(meta, word), true];
    }
    return [terms, Boolean(element.prefix)];
  }

  const NEAR = 0.5;
  const GAP = 6;
  const PARTIAL = 0.25;
  const PARTIAL_SHARE = 0.5;
  const FIELD = 4.0;
  const ORDER = 4096;

  // -- priors.py ----------------------------------------------------------------------------

  const LINK_STEPS = 4;
  const PRIOR = 0.1;
  let standings = null; // Promise of every page's standing: 2 × link steps + (1 for a source)

  function standingsOf() {
    if (!standings) standings = load("priors").then((data) => (typeof data === "string" ? decode(data) : []));
    return standings;
  }

  const priorOf = (value) => 1.0 + (PRIOR * (value >> 1)) / LINK_STEPS;

  function having(alternatives) {
    const docs = new Set();
    for (const [list] of alternatives) for (const doc of list.keys()) docs.add(doc);
    return docs;
  }

  function positionsOf(doc, alternatives) {
    const at = new Set();
    for (const [list] of alternatives) if (list.has(doc)) for (const pos of list.get(doc).positions) at.add(pos);
    return [...at].sort((a, b) => a - b);
  }

  /** Each element's posting lists with their IDF; null when an element is in no page. */
  async function listsOf(meta, p) {
    const found = [];
    const withPositions = p.elements.length > 1; // adjacency needs them
    for (const element of p.elements) {
      const [terms, asOne] = await termsOf(meta, element);
      const lists = (await Promise.all(terms.map((t) => postings(meta, t, withPositions)))).filter((l) => l.size);
      if (!lists.length) return null;
      if (asOne) {
        // the words a prefix (or a misspelling) stands for count as one term
        const weight = idf(meta.pages, having(lists.map((l) => [l])).size);
        found.push(lists.map((l) => [l, weight]));
      } else {
        found.push(lists.map((l) => [l, idf(meta.pages, l.size)]));
      }
    }
    return found;
  }

  function adjacent(doc, elements, found) {
    let starts = null;
    for (let i = 0; i < elements.length; i++) {
      const here = new Set(positionsOf(doc, found[i]).map((pos) => pos - elements[i].offset));
      starts = starts === null ? here : new Set([...starts].filter((s) => here.has(s)));
      if (!starts.size) return false;
    }
    return true;
  }

  function lowerBound(sorted, value) {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The elements in order, each d to d + GAP positions after the one before. */
  function near(doc, elements, found) {
    const chains = found.map((alternatives) => positionsOf(doc, alternatives));
    for (const start of chains[0]) {
      let at = start;
      let ok = true;
      for (let i = 1; i < elements.length && ok; i++) {
        const step = elements[i].offset - elements[i - 1].offset;
        const k = lowerBound(chains[i], at + step);
        if (k === chains[i].length || chains[i][k] > at + step + GAP) ok = false;
        else at = chains[i][k];
      }
      if (ok) return true;
    }
    return false;
  }

  function scoreOf(doc, found) {
    let score = 0;
    for (const alternatives of found) {
      let best = 0;
      for (const [list, w] of alternatives) {
        if (list.has(doc)) best = Math.max(best, (w * list.get(doc).weight) / SCALE);
      }
      score += best;
    }
    return score;
  }

  /** Where the page holds the part: 1 title, 3/4 summary or tags, less a heading, 0 body. */
  function fieldOf(doc, found) {
    let least = null;
    for (const alternatives of found) {
      let tier = 0;
      for (const [list] of alternatives) {
        if (list.has(doc)) tier = Math.max(tier, Math.floor(list.get(doc).weight / SCALE));
      }
      least = least === null ? tier : Math.min(least, tier);
    }
    return Math.min(least === null ? 0 : least, 4) / 4;
  }

  /** The score of a partial match: the bigrams of the run the page holds, if at least half. */
  function partial(doc, grams, gramDocs) {
    const held = grams.filter((alternatives, i) => gramDocs[i].has(doc));
    return 2 * held.length >= grams.length ? PARTIAL * scoreOf(doc, held) : 0;
  }

  /** Each bigram's posting list of a near part, empty for one in no page; null if none is. */
  async function gramLists(meta, p) {
    const found = [];
    for (const gram of p.grams) {
      const list = await postings(meta, gram);
      found.push(list.size ? [[list, idf(meta.pages, list.size)]] : []);
    }
    return found.some((alternatives) => alternatives.length) ? found : null;
  }

  /** Map(doc -> [score, share, field]) of the pages matching a part (see engine.match_part). */
  async function matchPart(meta, p, loose) {
    const wide = loose && p.near;
    const found = await listsOf(meta, p);
    const grams = wide ? await gramLists(meta, p) : null;
    const scores = new Map();
    if (!found && !grams) return scores;
    let all = new Set(); // the pages that hold every element
    if (found) {
      const held = found.map(having);
      all = new Set([...held[0]].filter((d) => held.every((docs) => docs.has(d))));
    }
    const gramDocs = (grams || []).map(having);
    const candidates = new Set(all);
    for (const docs of gramDocs) for (const d of docs) candidates.add(d);
    for (const doc of [...candidates].sort((a, b) => a - b)) {
      const complete = all.has(doc);
      if (complete && (found.length === 1 || adjacent(doc, p.elements, found))) {
        scores.set(doc, [scoreOf(doc, found), 1, fieldOf(doc, found)]);
      } else if (wide && complete && near(doc, p.elements, found)) {
        scores.set(doc, [NEAR * scoreOf(doc, found), 1, fieldOf(doc, found)]);
      } else if (grams) {
        const score = partial(doc, grams, gramDocs);
        if (score) scores.set(doc, [score, PARTIAL_SHARE, 0]);
      }
    }
    return scores;
  }

  /** The pages with any of the filter terms; a term naming a type's label names the type. */
  async function filterDocs(meta, terms) {
    const labels = meta.labels || {};
    const byLabel = new Map(Object.keys(labels).map((k) => [filterTerm("type", labels[k]), filterTerm("type", k)]));
    const docs = new Set();
    for (const term of terms) for (const doc of (await postings(meta, byLabel.get(term) || term)).keys()) docs.add(doc);
    return docs;
  }

  async function wordScores(meta, query) {
    if (!query.words.length) return null;
    let found = await Promise.all(query.words.map((p) => matchPart(meta, p, query.words.length > 1)));
    if (found.length === 1 && !found[0].size) found = [await matchPart(meta, query.words[0], true)];
    const totals = new Map();
    const shares = new Map();
    for (const scores of found) {
      for (const [doc, [score, share, field]] of scores) {
        totals.set(doc, (totals.get(doc) || 0) + score + FIELD * field);
        shares.set(doc, (shares.get(doc) || 0) + share);
      }
    }
    const out = new Map();
    for (const [doc, total] of totals) out.set(doc, (total * shares.get(doc)) / found.length);
    return out;
  }

  /** Every page matching `text`, best first: {query, docs: [id, ...]}. */
  async function rank(text) {
    const meta = await load("meta");
    if (!meta) throw new Error("no search index");
    const query = parseQuery(text);
    if (query.empty) return { meta, query, docs: [] };
    // Start every download the query needs at once; postings() keeps the promises.
    for (const p of [...query.parts, ...query.excluded]) {
      for (const e of p.elements) if (!e.prefix) postings(meta, e.terms[0], p.elements.length > 1);
    }
    const titled = postings(meta, query.title);
    const short = postings(meta, SHORT_KEY + query.title.slice(1));
    const standing = standingsOf();
    let scores = await wordScores(meta, query);
    for (const p of query.phrases) {
      const found = new Map([...(await matchPart(meta, p, false))].map(([doc, [score]]) => [doc, score]));
      if (scores === null) scores = found;
      else {
        const next = new Map();
        for (const [doc, s] of scores) if (found.has(doc)) next.set(doc, s + found.get(doc));
        scores = next;
      }
    }
    for (const terms of query.filters) {
      const allowed = await filterDocs(meta, terms);
      if (scores === null) scores = new Map([...allowed].sort((a, b) => a - b).map((d) => [d, 0]));
      else for (const doc of [...scores.keys()]) if (!allowed.has(doc)) scores.delete(doc);
    }
    for (const doc of await filterDocs(meta, query.unwanted)) scores.delete(doc);
    for (const p of query.excluded) for (const doc of (await matchPart(meta, p, false)).keys()) scores.delete(doc);
    const [title, shortTitle, standings] = [await titled, await short, await standing];
    const keys = new Map(((meta.delta && meta.delta.keys) || []).map(([doc, key]) => [doc, key]));
    const orderKey = (d) => (keys.has(d) ? keys.get(d) : (d + 1) * ORDER);
    const titleRank = (d) => (title.has(d) ? 0 : shortTitle.has(d) ? 1 : 2);
    const key = (d) => {
      const value = d < standings.length ? standings[d] : 0;
      const [rank, source] = [titleRank(d), value & 1];
      const score = Math.floor(scores.get(d) * priorOf(value) * 1e6 + 0.5);
      return [rank, rank < 2 ? source : 0, -score, source, orderKey(d)];
    };
    const keyed = new Map([...scores.keys()].map((d) => [d, key(d)]));
    const docs = [...scores.keys()].sort((a, b) => {
      const [x, y] = [keyed.get(a), keyed.get(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3] || x[4] - y[4];
    });
    return { meta, query, docs };
  }

  // -- excerpt.py ---------------------------------------------------------------------------

  const BEFORE = 40;
  const LENGTH = 180;

  // Offsets count code points, as Python's do, so both clients cut the same excerpt: the
  // text, its lower case and the needles are arrays of code points.

  function atWordStart(lower, i, needle) {
    if (CJK_CHAR.test(needle[0]) || i === 0) return true;
    return !WORD_CHAR.test(lower[i - 1]);
  }

  function startsAt(lower, i, needle) {
    if (i + needle.length > lower.length) return false;
    for (let k = 0; k < needle.length; k++) if (lower[i + k] !== needle[k]) return false;
    return true;
  }

  function first(lower, needles) {
    let best = -1;
    for (const needle of needles) {
      for (let i = 0; i < lower.length && (best < 0 || i < best); i++) {
        if (startsAt(lower, i, needle) && atWordStart(lower, i, needle)) {
          best = i;
          break;
        }
      }
    }
    return best;
  }

  function byLength(a, b) {
    const [la, lb] = [Array.from(a).length, Array.from(b).length];
    return lb - la || (a < b ? -1 : a > b ? 1 : 0);
  }

  /** normalise(), one code point at a time. */
  function lowerChars(chars) {
    const whole = Array.from(chars.join("").toLowerCase());
    if (whole.length === chars.length) return whole;
    return chars.map((c) => {
      const l = c.toLowerCase();
      return Array.from(l).length === 1 ? l : c;
    });
  }

  /** [text, isMatch] pieces of the page text around the first match. */
  function excerpt(doc, needles) {
    const text = Array.from((doc.body || doc.summary).replace(/\n/g, " "));
    const lower = lowerChars(text);
    const wanted = [...new Set(needles.filter(Boolean))].sort(byLength).map((n) => Array.from(n));
    const at = first(lower, wanted);
    const start = at >= 0 ? Math.max(0, at - BEFORE) : 0;
    const end = Math.min(text.length, start + LENGTH);
    const pieces = start > 0 ? [["…", false]] : [];
    const slice = (a, b) => text.slice(a, b).join("");
    let plain = start;
    let i = start;
    while (i < end) {
      const needle = wanted.find((n) => startsAt(lower, i, n) && atWordStart(lower, i, n));
      if (needle === undefined) {
        i += 1;
        continue;
      }
      if (plain < i) pieces.push([slice(plain, i), false]);
      const stop = Math.min(i + needle.length, text.length);
      pieces.push([slice(i, stop), true]);
      i = plain = stop;
    }
    if (plain < end) pieces.push([slice(plain, end), false]);
    if (end < text.length) pieces.push(["…", false]);
    return pieces;
  }

  // -- pagefiles.py: the pages' own files, a few consecutive ids to a file -----------------

  function starts(meta) {
    if (!meta.starts) {
      let at = 0;
      meta.starts = decode(meta.chunks || "").map((delta) => (at += delta));
    }
    return meta.starts;
  }

  async function pageOf(meta, id) {
    const first = starts(meta);
    let lo = 0;
    let hi = first.length; // the last file whose first id is <= id
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (first[mid] <= id) lo = mid + 1;
      else hi = mid;
    }
    const chunk = lo - 1;
    const data = await load("d/" + chunk);
    const doc = data ? data.docs[id - data.first] : null;
    return doc ? { doc, chunk, at: id - data.first } : null;
  }

  /** The excerpt of a page; a page cut in its page file (`more`) is joined with its rest
   * from the continuation file when the excerpt of its first part would not be the whole
   * page's: no match, or a window that reaches the cut. */
  async function excerptOf(page, needles) {
    const pieces = excerpt(page.doc, needles);
    const last = pieces[pieces.length - 1];
    const within = pieces.some((p) => p[1]) && last && !last[1] && last[0] === "…";
    if (!page.doc.more || within) return pieces;
    const rests = await load("c/" + page.chunk);
    const rest = rests && Array.isArray(rests.rests) ? rests.rests[page.at] : null;
    return typeof rest === "string" ? excerpt({ ...page.doc, body: page.doc.body + rest }, needles) : pieces;
  }

  /** Run a search: its total and `count` results from `offset`, with their excerpts. */
  async function search(text, offset = 0, count = PAGE) {
    const ranked = await rank(text);
    const needles = ranked.query.parts.flatMap((p) => p.needles);
    const chosen = ranked.docs.slice(offset, offset + count);
    const pages = (await Promise.all(chosen.map((id) => pageOf(ranked.meta, id)))).filter(Boolean);
    const excerpts = await Promise.all(pages.map((page) => excerptOf(page, needles)));
    const results = pages.map(({ doc }, i) => ({
      path: doc.path,
      url: new URL(doc.url.split("/").map(encodeURIComponent).join("/"), ROOT).href,
      title: doc.title,
      type: doc.type,
      label: (ranked.meta.labels || {})[doc.type] || doc.type,
      excerpt: excerpts[i],
    }));
    return { total: ranked.docs.length, results, more: offset + count < ranked.docs.length };
  }

  // -- the page -----------------------------------------------------------------------------

  // The UI strings, in the site's language (kbtool/render/i18n.py), ride on the search box.
  const stringsFrom = document.getElementById("search-input");
  const STRINGS = stringsFrom ? stringsFrom.dataset : {};
  const say = (key, n) => {
    const text = (n === 1 && STRINGS[key + "One"]) || STRINGS[key] || "";
    return text.replace("{n}", String(n));
  };

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function renderHit(item) {
    const li = element("li", "search-hit");
    const link = element("a", "search-hit-link");
    link.href = item.url;
    link.append(element("span", "search-hit-title", item.title));
    if (item.label) link.append(element("span", "search-hit-type", item.label));
    const snippet = element("span", "search-hit-excerpt");
    for (const [text, match] of item.excerpt) {
      snippet.append(match ? element("mark", "", text) : document.createTextNode(text));
    }
    link.append(snippet);
    li.append(link);
    return li;
  }

  function searchPageUrl(query) {
    const url = new URL("search.html", ROOT);
    url.searchParams.set("q", query);
    return url.href;
  }

  /** Keeps only the newest query's answer on screen when answers arrive out of order. */
  function latest() {
    let ticket = 0;
    return () => {
      const mine = ++ticket;
      return () => mine === ticket;
    };
  }

  function debounce(fn, ms) {
    let timer = 0;
    return (...args) => {
      clearTimeout(timer);
      timer = setTimeout(() => fn(...args), ms);
    };
  }

  const status = (total) => element("p", "search-status", total ? say("found", total) : say("none"));

  /** Results as you type, under the search box. */
  function suggest(input, box) {
    const next = latest();
    const close = () => {
      box.replaceChildren();
      box.classList.remove("open");
      input.setAttribute("aria-expanded", "false");
    };
    const show = debounce(async () => {
      const query = input.value;
      const current = next();
      if (!query.trim()) return close();
      let answer;
      try {
        answer = await search(query, 0, SUGGEST);
      } catch (error) {
        if (current()) box.replaceChildren(element("p", "search-status", say("unavailable")));
        return;
      }
      if (!current()) return;
      const nodes = [status(answer.total)];
      if (answer.total) {
        const list = element("ol", "search-hits");
        list.append(...answer.results.map(renderHit));
        nodes.push(list);
      }
      if (answer.more) {
        const all = element("a", "search-all", say("all", answer.total));
        all.href = searchPageUrl(query.trim());
        nodes.push(all);
      }
      box.replaceChildren(...nodes);
      box.dataset.query = query; // which query these results answer (keystrokes race)
      box.classList.add("open");
      input.setAttribute("aria-expanded", "true");
    }, 60);

    input.setAttribute("aria-controls", box.id);
    input.setAttribute("aria-expanded", "false");
    input.addEventListener("input", show);
    input.addEventListener("focus", () => input.value.trim() && show());
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") close();
      if (event.key === "ArrowDown") {
        const link = box.querySelector("a");
        if (link) {
          event.preventDefault();
          link.focus();
        }
      }
    });
    box.addEventListener("keydown", (event) => {
      const links = [...box.querySelectorAll("a")];
      const at = links.indexOf(document.activeElement);
      if (event.key === "Escape") {
        close();
        input.focus();
      } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const to = at + (event.key === "ArrowDown" ? 1 : -1);
        if (to < 0) input.focus();
        else if (to < links.length) links[to].focus();
      }
    });
    document.addEventListener("click", (event) => {
      if (!box.contains(event.target) && event.target !== input) close();
    });
    // Loaded when the reader reached for the box (search-loader.js): what was typed meanwhile.
    if (document.activeElement === input && input.value.trim()) show();
  }

  /** The full result list on search.html, with a "more" button. */
  function resultsPage(input, box) {
    const next = latest();
    const run = async (query) => {
      const current = next();
      box.replaceChildren();
      box.setAttribute("aria-busy", "false");
      if (!query.trim()) return;
      box.append(element("p", "search-status", say("loading")));
      box.setAttribute("aria-busy", "true");
      let answer;
      try {
        answer = await search(query, 0, PAGE);
      } catch (error) {
        if (current()) {
          box.replaceChildren(element("p", "search-status", say("unavailable")));
          box.setAttribute("aria-busy", "false");
        }
        return;
      }
      if (!current()) return;
      const list = element("ol", "search-hits");
      list.append(...answer.results.map(renderHit));
      box.replaceChildren(status(answer.total), list);
      box.setAttribute("aria-busy", "false");
      let offset = PAGE;
      if (answer.more) {
        const more = element("button", "search-more", say("more"));
        more.type = "button";
        more.addEventListener("click", async () => {
          more.disabled = true;
          const page = await search(query, offset, PAGE);
          if (!current()) return;
          const added = page.results.map(renderHit);
          list.append(...added);
          offset += PAGE;
          if (added.length) added[0].querySelector("a").focus();
          if (page.more) more.disabled = false;
          else more.remove();
        });
        box.append(more);
      }
    };
    const query = new URLSearchParams(location.search).get("q") || "";
    if (input) {
      input.value = query;
      input.addEventListener(
        "input",
        debounce(() => {
          const typed = input.value;
          const url = typed.trim() ? `?q=${encodeURIComponent(typed.trim())}` : location.pathname;
          try {
            history.replaceState(null, "", url);
          } catch (error) {
            // file:// pages may refuse; the results still update
          }
          run(typed);
        }, 60),
      );
    }
    run(query);
  }

  function start() {
    const input = document.querySelector('#search input[name="q"]');
    const box = document.getElementById("search-results");
    if (!box) return;
    if (box.closest("main")) resultsPage(input, box);
    else if (input) suggest(input, box);
  }

  // For tests and for other scripts of the site.
  window.kbtoolSearch = { search, rank, parseQuery, normalise, fnv1a, decode, excerpt };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
