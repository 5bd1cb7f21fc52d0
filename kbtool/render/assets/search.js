/* kbtool site search: Pagefind's index, queried with CJK text spelled as bigram words.
 *
 * The build (kbtool/render/search_grams.py) gives Pagefind every run of CJK characters spelled
 * as overlapping bigrams in letters, because Pagefind's own Chinese segmentation at index time
 * and in the browser disagree and lose substrings. A query is spelled the same way here and
 * sent as a quoted phrase, so "意力" finds every page whose text contains 意力; the page text
 * Pagefind returns is spelled back into characters for the excerpt.
 *
 * Two views share one search function: results as you type under the search box of every
 * page, and the full list on search.html?q=...  Everything is rendered with textContent:
 * titles and excerpts come from pages and are never parsed as HTML.
 */
(() => {
  "use strict";

  const script = document.currentScript;
  // search.js is <site>/assets/search.js: the site root is one folder up, wherever it is hosted.
  const ROOT = new URL("../", script ? script.src : location.href);
  const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/g;
  const NIBBLES = "abcdefghijklmnop";
  // A spelled run: "kbgre" and its bigram words (or the one word of a one-character run).
  const SPELLED_RUN = /\s*\bkbgre((?:\s+k[a-p]{8}\b)+|\s+k[a-p]{4}\b)\s*/g;
  const SUGGEST = 8; // results under the search box
  const PAGE = 10; // results per "more" on search.html (each result fetches its page's text)
  const EXCERPT = 44; // characters of context either side of a match

  const STRINGS = {
    zh: {
      results: (n) => `找到 ${n} 个页面`,
      none: "没有找到包含这些词的页面。",
      more: "更多结果",
      all: "查看全部结果",
      unavailable: "搜索暂不可用（需要通过网站服务器打开）。",
      loading: "正在搜索…",
    },
    en: {
      results: (n) => (n === 1 ? "1 page found" : `${n} pages found`),
      none: "No page contains these words.",
      more: "More results",
      all: "See all results",
      unavailable: "Search is unavailable (the site must be opened through a web server).",
      loading: "Searching…",
    },
  };
  const T = STRINGS[(document.documentElement.lang || "").startsWith("zh") ? "zh" : "en"];

  /** One BMP character as four letters: its code point's hex digits, 0-f spelled a-p. */
  function spell(ch) {
    const code = ch.charCodeAt(0);
    return [12, 8, 4, 0].map((shift) => NIBBLES[(code >> shift) & 15]).join("");
  }

  /** The query Pagefind is asked: each CJK run becomes a quoted phrase of bigram words
   * (a single character, one word that also matches as a prefix); other words stay. */
  function pagefindQuery(query) {
    const phrases = [];
    const rest = query.replace(/["“”]/g, " ").replace(CJK_RUN, (run) => {
      if (run.length === 1) {
        phrases.push("k" + spell(run));
      } else {
        const words = [];
        for (let i = 0; i + 1 < run.length; i++) words.push("k" + spell(run[i]) + spell(run[i + 1]));
        phrases.push(`"${words.join(" ")}"`);
      }
      return " ";
    });
    return [...phrases, rest.replace(/\s+/g, " ").trim()].filter(Boolean).join(" ");
  }

  /** The words a reader typed, lower-cased, for ranking and highlighting. */
  function terms(query) {
    return query.toLowerCase().replace(/["“”]/g, " ").split(/\s+/).filter(Boolean);
  }

  let pagefind = null;
  function loadPagefind() {
    if (!pagefind) {
      pagefind = import(new URL("pagefind/pagefind.js", ROOT).href).then(async (pf) => {
        // Pagefind's URLs start at the site root; prefix the folder the site is served from.
        // The meta weights make a title match outrank any body match, and a summary match any
        // body match (kbtitle / kbsummary hold the bigrams of title and summary).
        await pf.options({
          baseUrl: ROOT.pathname,
          ranking: { metaWeights: { title: 100, kbtitle: 100, summary: 40, kbsummary: 40 } },
        });
        return pf;
      });
      pagefind.catch(() => {
        pagefind = null; // let a later keystroke try again
      });
    }
    return pagefind;
  }

  /** The character four letters spell (the inverse of spell). */
  function unspellChar(letters) {
    let code = 0;
    for (const letter of letters) code = code * 16 + NIBBLES.indexOf(letter);
    return String.fromCharCode(code);
  }

  /** Text as the reader wrote it: spelled runs back into characters, without the zero-width
   * spaces Pagefind puts between words. */
  function unspell(text) {
    return text.replace(/\u200b/g, "").replace(SPELLED_RUN, (_, spelled) => {
      const words = spelled.trim().split(/\s+/);
      if (words[0].length === 5) return unspellChar(words[0].slice(1));
      return unspellChar(words[0].slice(1, 5)) + words.map((w) => unspellChar(w.slice(5))).join("");
    });
  }

  /** Order within a batch: the page titled exactly so, title matches, summary matches, the rest. */
  function rank(item, words) {
    const has = (text) => words.length > 0 && words.every((w) => text.toLowerCase().includes(w));
    if (item.title.trim().toLowerCase() === words.join(" ")) return 0;
    if (has(item.title)) return 1;
    if (has(item.summary)) return 2;
    return 3;
  }

  /** A window of text around the first match, as [text, isMatch] pieces. */
  function excerpt(text, words) {
    const lower = text.toLowerCase();
    let at = -1;
    for (const w of words) {
      const i = lower.indexOf(w);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at < 0) return [[text.slice(0, 2 * EXCERPT) + (text.length > 2 * EXCERPT ? "…" : ""), false]];
    const start = Math.max(0, at - EXCERPT);
    const end = Math.min(text.length, at + 2 * EXCERPT);
    const part = text.slice(start, end);
    const pattern = new RegExp(
      words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
      "gi",
    );
    const pieces = [];
    if (start > 0) pieces.push(["…", false]);
    let last = 0;
    for (const m of part.matchAll(pattern)) {
      if (m[0].length === 0) break;
      pieces.push([part.slice(last, m.index), false], [m[0], true]);
      last = m.index + m[0].length;
    }
    pieces.push([part.slice(last), false]);
    if (end < text.length) pieces.push(["…", false]);
    return pieces;
  }

  /** Run a search; return its total and `count` results from `offset`, best first, with title
   * and summary matches ahead of body-only matches within the batch. */
  async function search(query, offset = 0, count = PAGE) {
    const pf = await loadPagefind();
    const asked = pagefindQuery(query);
    if (!asked) return { total: 0, results: [], more: false };
    const found = await pf.search(asked);
    let ranked = found.results;
    if (asked.includes('"')) {
      // Pagefind gives every page of a quoted phrase the same score; the same words unquoted
      // are ranked, with the meta weights, and need no further download. Keep the phrase's
      // pages, in the unquoted order.
      const exact = new Set(found.results.map((r) => r.id));
      const loose = await pf.search(asked.replace(/"/g, ""));
      ranked = loose.results.filter((r) => exact.delete(r.id));
      for (const r of found.results) if (exact.has(r.id)) ranked.push(r);
    }
    const words = terms(query);
    const batch = ranked.slice(offset, offset + count);
    const data = await Promise.all(batch.map((r) => r.data()));
    const results = data.map((d, i) => {
      const text = unspell(d.content || "").trim();
      const item = {
        url: d.url,
        title: unspell((d.meta && d.meta.title) || d.url),
        summary: unspell((d.meta && d.meta.summary) || ""),
        excerpt: excerpt(text, words),
        order: offset + i,
      };
      item.rank = rank(item, words);
      return item;
    });
    results.sort((a, b) => a.rank - b.rank || a.order - b.order);
    return { total: ranked.length, results, more: offset + count < ranked.length };
  }

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

  /** Results as you type, under the search box. */
  function suggest(input, box) {
    const next = latest();
    const close = () => {
      box.replaceChildren();
      box.classList.remove("open");
      input.setAttribute("aria-expanded", "false");
    };
    const show = debounce(async () => {
      const query = input.value.trim();
      const current = next();
      if (!query) return close();
      let answer;
      try {
        answer = await search(query, 0, SUGGEST);
      } catch (error) {
        if (current()) box.replaceChildren(element("p", "search-status", T.unavailable));
        return;
      }
      if (!current()) return;
      const nodes = [element("p", "search-status", answer.total ? T.results(answer.total) : T.none)];
      if (answer.total) {
        const list = element("ol", "search-hits");
        list.append(...answer.results.map(renderHit));
        nodes.push(list);
      }
      if (answer.more) {
        const all = element("a", "search-all", T.all);
        all.href = searchPageUrl(query);
        nodes.push(all);
      }
      box.replaceChildren(...nodes);
      box.classList.add("open");
      input.setAttribute("aria-expanded", "true");
    }, 120);

    input.setAttribute("aria-controls", box.id);
    input.setAttribute("aria-expanded", "false");
    input.addEventListener("input", show);
    input.addEventListener("focus", () => input.value.trim() && show());
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") close();
      if (event.key === "ArrowDown") {
        const first = box.querySelector("a");
        if (first) {
          event.preventDefault();
          first.focus();
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
  }

  /** The full result list on search.html, with a "more" button. */
  function resultsPage(input, box) {
    const next = latest();
    const run = async (query) => {
      const current = next();
      box.replaceChildren();
      box.setAttribute("aria-busy", "false");
      if (!query) return;
      box.append(element("p", "search-status", T.loading));
      box.setAttribute("aria-busy", "true");
      let answer;
      try {
        answer = await search(query, 0, PAGE);
      } catch (error) {
        if (current()) {
          box.replaceChildren(element("p", "search-status", T.unavailable));
          box.setAttribute("aria-busy", "false");
        }
        return;
      }
      if (!current()) return;
      box.setAttribute("aria-busy", "false");
      const list = element("ol", "search-hits");
      const status = element("p", "search-status", answer.total ? T.results(answer.total) : T.none);
      list.append(...answer.results.map(renderHit));
      box.replaceChildren(status, list);
      let offset = PAGE;
      if (answer.more) {
        const more = element("button", "search-more", T.more);
        more.type = "button";
        more.addEventListener("click", async () => {
          more.disabled = true;
          const page = await search(query, offset, PAGE);
          if (!current()) return;
          list.append(...page.results.map(renderHit));
          offset += PAGE;
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
          const typed = input.value.trim();
          history.replaceState(null, "", typed ? `?q=${encodeURIComponent(typed)}` : location.pathname);
          run(typed);
        }, 200),
      );
    }
    run(query.trim());
  }

  function start() {
    const input = document.querySelector('#search input[name="q"]');
    const box = document.getElementById("search-results");
    if (!box) return;
    if (box.closest("main")) resultsPage(input, box);
    else if (input) suggest(input, box);
  }

  // For tests and for other scripts of the site.
  window.kbtoolSearch = { search, pagefindQuery, spell, unspell };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
