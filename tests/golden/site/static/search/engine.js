/* papercat search engine: queries the prebuilt Lunr index in search/, in segments of papers, each
 * split into chunks by term prefix.
 *
 * Plain ES2017 with no dependencies but lunr.js, which the caller passes in. Works through
 * importScripts() in a Web Worker (global PapercatSearch) and through require() in Node.
 *
 *   const engine = PapercatSearch.createEngine({ lunr, fetchJson: async (relPath) => obj })
 *   await engine.search("guardrail agents", { venue: null, topic: null, limit: 20 })
 *     -> { total, results: [{ id, title, url, venues, topics, score, snippet: [{ text, hit }] }] }
 *   await engine.facets()  -> { venues: [[slug, label]], topics: [[slug, name]] }
 *   engine.bytesLoaded()   -> bytes of JSON fetched so far (as re-encoded UTF-8; about the file sizes)
 *   engine.fetched()       -> the relPaths fetched so far, in order
 *
 * Options besides lunr and fetchJson: chunkBudget (bytes of chunk JSON one query may read, default
 * 2,400,000) and typos (false turns off the one-edit typo clause).
 *
 * relPath is relative to the site's search/ folder ("manifest.json", "t/0/7472.json", "docs/0.json").
 * Nothing here produces HTML: titles and snippet segments are plain text for textContent.
 * docs/search.md explains the files, how chunks are chosen and how scores are combined.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.PapercatSearch = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  // Clause boosts: the word as typed (stemmed) counts most, a completion of it ("transf" ->
  // "transformer") less, a one-letter typo least.
  var EXACT_BOOST = 10;
  var PREFIX_BOOST = 3;
  var FUZZY_BOOST = 1;
  var FUZZY_MIN_LENGTH = 5; // shorter words have too many neighbours one edit away
  var PREFIX_MIN_LENGTH = 2; // "a*" would need every chunk under "a"
  // Bytes of chunk JSON one query may read (about a quarter of that gzipped): the words' own chunks
  // first, smallest first, then prefix completions. A word whose chunk would pass it is left out of
  // the query; only chunks of the most common words grow large, and those words weigh least in BM25.
  var DEFAULT_CHUNK_BUDGET = 2400000;
  var SNIPPET_WIDTH = 260;
  var SNIPPET_LEAD = 60; // characters of context kept before the first hit
  // The index was built from text without these (papercat/search.py plain_text): drop them from
  // queries too, so "$O(T^2)$" or "**M**ultimodal" meet the indexed words.
  var MARKUP = /[*$`{}]/g;
  // lunr.tokenizer.separator is /[\s\-]+/; the index also splits on en and em dashes (search.py).
  var DASHES = /[\u2013\u2014]/g;
  var WORD = /[^\s\-\u2013\u2014]+/g;
  var EDGE_PUNCTUATION = /^[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+|[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+$/g;

  /** The query's words: [{ raw, term }], raw trimmed and lower-cased, term stemmed; no stop words. */
  function parseQuery(lunr, text) {
    var seen = Object.create(null);
    var words = [];
    var tokens = lunr.tokenizer(String(text == null ? "" : text).replace(MARKUP, "").replace(DASHES, " "));
    for (var i = 0; i < tokens.length; i++) {
      var raw = lunr.trimmer(tokens[i]).toString();
      if (!raw || !lunr.stopWordFilter(new lunr.Token(raw)) || seen[raw]) continue;
      seen[raw] = true;
      words.push({ raw: raw, term: lunr.stemmer(new lunr.Token(raw)).toString() });
    }
    return words;
  }

  /**
   * Merge chunk indexes into one serialized lunr index: their terms, and each field vector's elements.
   * Every segment numbers a term as one index over all documents would: a term held by the chunks of
   * several segments has one number, and its postings are joined.
   */
  function mergeChunks(chunks) {
    if (chunks.length === 1) return chunks[0];
    var entries = new Map(); // term -> [term, posting]
    var parts = new Map();
    chunks.forEach(function (chunk) {
      chunk.invertedIndex.forEach(function (entry) {
        var held = entries.get(entry[0]);
        if (!held) {
          entries.set(entry[0], entry);
          return;
        }
        var posting = { _index: held[1]._index }; // a new object: the chunks stay as they were loaded
        chunk.fields.forEach(function (field) { posting[field] = Object.assign({}, held[1][field], entry[1][field]); });
        entries.set(entry[0], [entry[0], posting]);
      });
      chunk.fieldVectors.forEach(function (vector) {
        var list = parts.get(vector[0]);
        if (!list) parts.set(vector[0], (list = []));
        list.push(vector[1]);
      });
    });
    var inverted = Array.from(entries.values());
    // lunr's TokenSet builder needs its words in JavaScript string order.
    inverted.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; });
    var vectors = [];
    parts.forEach(function (list, ref) {
      if (list.length === 1) {
        vectors.push([ref, list[0]]);
        return;
      }
      var pairs = [];
      list.forEach(function (elements) {
        for (var i = 0; i < elements.length; i += 2) pairs.push([elements[i], elements[i + 1]]);
      });
      pairs.sort(function (a, b) { return a[0] - b[0]; }); // lunr.Vector needs ascending term numbers
      var flat = [];
      pairs.forEach(function (pair) { flat.push(pair[0], pair[1]); });
      vectors.push([ref, flat]);
    });
    var first = chunks[0];
    return { version: first.version, fields: first.fields, fieldVectors: vectors, invertedIndex: inverted,
             pipeline: first.pipeline };
  }

  /** Where one segment's terms live: its [prefix, exact, file] keys, looked up as docs/search.md says. */
  function SegmentMap(keys) {
    this.exact = new Map();
    this.prefix = new Map();
    this.keys = keys;
    for (var i = 0; i < keys.length; i++) {
      var key = keys[i];
      (key[1] ? this.exact : this.prefix).set(key[0], key[2]);
    }
  }

  /** The file holding ``term``, or -1 when no indexed term of the segment can be it. */
  SegmentMap.prototype.fileOf = function (term) {
    if (this.exact.has(term)) return this.exact.get(term);
    for (var n = term.length; n >= 0; n--) {
      var file = this.prefix.get(term.slice(0, n));
      if (file !== undefined) return file;
    }
    return -1;
  };

  /** The files of the segment holding every term that starts with ``start``. */
  SegmentMap.prototype.filesWithPrefix = function (start) {
    var files = [];
    var outer = this.fileOf(start); // a chunk of a shorter prefix may hold them all
    if (outer >= 0) files.push(outer);
    for (var i = 0; i < this.keys.length; i++) {
      var key = this.keys[i];
      if (key[0].length > start.length && key[0].slice(0, start.length) === start) files.push(key[2]);
    }
    return files;
  };

  /** Where terms live: in each segment of the manifest, the chunk its keys name (file numbers are
   * the manifest's, over all segments). */
  function ChunkMap(manifest) {
    this.sizes = manifest.chunkFiles.map(function (file) { return file[1]; });
    this.segmentOf = [];
    var segments = manifest.segments;
    var self = this;
    this.segments = segments.map(function (segment, s) {
      var files = segment.files;
      for (var f = files[0]; f < files[1]; f++) self.segmentOf[f] = s;
      return new SegmentMap(manifest.chunks.filter(function (key) { return key[2] >= files[0] && key[2] < files[1]; }));
    });
  }

  /** The files holding ``term``: one in each segment where an indexed term can be it. */
  ChunkMap.prototype.filesOf = function (term) {
    var files = [];
    this.segments.forEach(function (segment) {
      var file = segment.fileOf(term);
      if (file >= 0) files.push(file);
    });
    return files;
  };

  /** The files holding every term that starts with ``start``, in every segment. */
  ChunkMap.prototype.filesWithPrefix = function (start) {
    var files = [];
    this.segments.forEach(function (segment) { files = files.concat(segment.filesWithPrefix(start)); });
    return files;
  };

  function utf8Length(text) {
    return typeof TextEncoder !== "undefined" ? new TextEncoder().encode(text).length : text.length;
  }

  function createEngine(options) {
    var lunr = options.lunr;
    var fetchJson = options.fetchJson;
    var budget = options.chunkBudget || DEFAULT_CHUNK_BUDGET;
    var typos = options.typos !== false;
    var cache = new Map(); // relPath -> Promise of its JSON
    var indexes = new Map(); // "3,7" -> lunr.Index over those chunk files (a few kept)
    var fetchedPaths = [];
    var bytes = 0;
    var manifestPromise = null;
    var chunkMap = null;

    function load(relPath) {
      if (!cache.has(relPath)) {
        var promise = Promise.resolve(fetchJson(relPath)).then(function (value) {
          fetchedPaths.push(relPath);
          bytes += utf8Length(JSON.stringify(value));
          return value;
        });
        promise.catch(function () { cache.delete(relPath); }); // a failed fetch may be retried
        cache.set(relPath, promise);
      }
      return cache.get(relPath);
    }

    function manifest() {
      if (!manifestPromise) {
        manifestPromise = load("manifest.json").then(function (value) {
          chunkMap = new ChunkMap(value);
          return value;
        });
        manifestPromise.catch(function () { manifestPromise = null; });
      }
      return manifestPromise;
    }

    /** Which chunk files a query reads and which words it keeps: see DEFAULT_CHUNK_BUDGET. */
    function plan(allWords) {
      var files = new Set();
      var size = 0;
      var own = allWords.map(function (word) { return chunkMap.filesOf(word.term); });
      var cost = function (list) {
        var more = 0;
        list.forEach(function (file) { if (!files.has(file)) more += chunkMap.sizes[file]; });
        return more;
      };
      var order = allWords.map(function (word, i) { return i; });
      order.sort(function (a, b) { return cost(own[a]) - cost(own[b]) || a - b; });
      var kept = [];
      order.forEach(function (i) {
        var more = cost(own[i]);
        if (files.size && size + more > budget) return;
        own[i].forEach(function (file) { files.add(file); });
        size += more;
        kept[i] = true;
      });
      var words = allWords.filter(function (word, i) { return kept[i]; });
      var prefixed = words.map(function (word) {
        if (word.raw.length < PREFIX_MIN_LENGTH) return false;
        var extra = chunkMap.filesWithPrefix(word.raw).filter(function (file) { return !files.has(file); });
        var more = 0;
        extra.forEach(function (file) { more += chunkMap.sizes[file]; });
        if (size + more > budget) return false;
        extra.forEach(function (file) { files.add(file); });
        size += more;
        return true;
      });
      var sorted = Array.from(files).sort(function (a, b) { return a - b; });
      return { files: sorted, words: words, prefixed: prefixed };
    }

    function indexOf(files, value) {
      var key = files.join(",");
      if (!indexes.has(key)) {
        var paths = files.map(function (file) { return value.chunkFiles[file][0]; });
        var promise = Promise.all(paths.map(load)).then(function (chunks) {
          return lunr.Index.load(mergeChunks(chunks));
        });
        promise.catch(function () { indexes.delete(key); });
        indexes.set(key, promise);
        if (indexes.size > 4) indexes.delete(indexes.keys().next().value);
      }
      return indexes.get(key);
    }

    async function search(query, opts) {
      opts = opts || {};
      var limit = opts.limit == null ? 20 : Math.max(0, opts.limit | 0);
      var value = await manifest();
      var empty = { total: 0, results: [] };
      var chosen = plan(parseQuery(lunr, query));
      var words = chosen.words;
      if (!chosen.files.length) return empty;
      var index = await indexOf(chosen.files, value);

      // The index terms each word can reach, to count how many of the words a paper matches.
      var reach = words.map(function (word, i) {
        var terms = new Set();
        if (index.invertedIndex[word.term]) terms.add(word.term);
        var sets = [];
        if (chosen.prefixed[i]) sets.push(lunr.TokenSet.fromString(word.raw + "*"));
        if (typos && word.raw.length >= FUZZY_MIN_LENGTH) {
          sets.push(lunr.TokenSet.fromFuzzyString(word.term, 1));
        }
        sets.forEach(function (set) {
          index.tokenSet.intersect(set).toArray().forEach(function (term) { terms.add(term); });
        });
        return terms;
      });
      var matches = index.query(function (q) {
        words.forEach(function (word, i) {
          q.clause({ term: word.raw, usePipeline: true, boost: EXACT_BOOST });
          if (chosen.prefixed[i]) {
            q.clause({ term: word.raw, usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING,
                       boost: PREFIX_BOOST });
          }
          if (typos && word.raw.length >= FUZZY_MIN_LENGTH) {
            q.clause({ term: word.raw, usePipeline: true, editDistance: 1, boost: FUZZY_BOOST });
          }
        });
      });

      var keep = await filter(value, opts);
      var found = [];
      matches.forEach(function (match) {
        var ref = Number(match.ref);
        if (keep && !keep(ref)) return;
        var terms = Object.keys(match.matchData.metadata);
        var covered = 0;
        reach.forEach(function (set) {
          if (terms.some(function (term) { return set.has(term); })) covered += 1;
        });
        found.push({ ref: ref, score: match.score, covered: covered, terms: terms });
      });
      // Papers matching more of the words first; then Lunr's BM25 score; then catalog order.
      found.sort(function (a, b) { return b.covered - a.covered || b.score - a.score || a.ref - b.ref; });

      var shown = found.slice(0, limit);
      var size = value.docShardSize;
      var shardOf = function (hit) { return Math.floor(hit.ref / size); };
      var shardNumbers = Array.from(new Set(shown.map(shardOf)));
      var shards = new Map();
      await Promise.all(shardNumbers.map(function (n) {
        return load("docs/" + n + ".json").then(function (docs) { shards.set(n, docs); });
      }));
      return {
        total: found.length,
        results: shown.map(function (hit) {
          var doc = shards.get(shardOf(hit))[hit.ref % size];
          return { id: doc.id, title: doc.title, url: doc.url, venues: doc.venues.slice(),
                   topics: doc.topics.slice(), score: hit.score,
                   snippet: snippet(lunr, doc.text, new Set(hit.terms)) };
        }),
      };
    }

    /** A test of doc numbers for the venue and topic filters, or null when there is none. */
    async function filter(value, opts) {
      if (!opts.venue && !opts.topic) return null;
      var venue = opts.venue ? indexOfSlug(value.venues, opts.venue) : null;
      var topic = opts.topic ? indexOfSlug(value.topics, opts.topic) : null;
      if (venue === -1 || topic === -1) return function () { return false; };
      var facets = await load("facets.json");
      return function (ref) {
        return (venue === null || facets.venues[ref].indexOf(venue) >= 0) &&
               (topic === null || facets.topics[ref].indexOf(topic) >= 0);
      };
    }

    async function facets() {
      var value = await manifest();
      return { venues: value.venues.map(function (v) { return v.slice(); }),
               topics: value.topics.map(function (t) { return t.slice(); }) };
    }

    return {
      search: search,
      facets: facets,
      bytesLoaded: function () { return bytes; },
      fetched: function () { return fetchedPaths.slice(); },
    };
  }

  function indexOfSlug(pairs, slug) {
    for (var i = 0; i < pairs.length; i++) if (pairs[i][0] === slug) return i;
    return -1;
  }

  /** ``core`` with the closing brackets after it that close brackets it opens: "alert(1)", not "alert(1". */
  function balanced(core, rest) {
    var pairs = { ")": "(", "]": "[" };
    while (core.length < rest.length && pairs[rest.charAt(core.length)]) {
      var close = rest.charAt(core.length);
      if (core.split(pairs[close]).length <= core.split(close).length) break;
      core += close;
    }
    return core;
  }

  /** Plain-text segments of ``text`` around its first matched words; hits are words whose stem matched. */
  function snippet(lunr, text, terms) {
    var words = [];
    var match;
    WORD.lastIndex = 0;
    while ((match = WORD.exec(text)) !== null) {
      var word = match[0];
      var lead = word.length - word.replace(/^[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/, "").length;
      var core = balanced(word.replace(EDGE_PUNCTUATION, ""), word.slice(lead));
      var key = lunr.trimmer(new lunr.Token(word.toLowerCase())).toString();
      var hit = key !== "" && terms.has(lunr.stemmer(new lunr.Token(key)).toString());
      words.push({ start: match.index, end: match.index + word.length, coreStart: match.index + lead,
                   coreEnd: match.index + lead + core.length, hit: hit && core.length > 0 });
    }
    var first = words.filter(function (w) { return w.hit; })[0];
    var start = 0;
    if (first && first.start > SNIPPET_LEAD) {
      // Begin at a word some way before the first hit, so the hit is read in context.
      var from = words.filter(function (w) { return w.start >= first.start - SNIPPET_LEAD; })[0];
      start = from.start;
    }
    var end = text.length;
    if (end - start > SNIPPET_WIDTH) {
      var inside = words.filter(function (w) { return w.start >= start && w.end <= start + SNIPPET_WIDTH; });
      end = inside.length ? inside[inside.length - 1].end : start + SNIPPET_WIDTH;
    }
    var segments = [];
    var cursor = start;
    function plain(upto) {
      if (upto <= cursor) return;
      var piece = text.slice(cursor, upto);
      var last = segments[segments.length - 1];
      if (last && !last.hit) last.text += piece;
      else segments.push({ text: piece, hit: false });
      cursor = upto;
    }
    words.forEach(function (w) {
      if (!w.hit || w.start < start || w.end > end) return;
      plain(w.coreStart);
      segments.push({ text: text.slice(w.coreStart, w.coreEnd), hit: true });
      cursor = w.coreEnd;
    });
    plain(end);
    if (start > 0) {
      if (segments.length && !segments[0].hit) segments[0].text = "…" + segments[0].text;
      else segments.unshift({ text: "…", hit: false });
    }
    if (end < text.length) {
      var tail = segments[segments.length - 1];
      if (tail && !tail.hit) tail.text += "…";
      else segments.push({ text: "…", hit: false });
    }
    return segments;
  }

  /* The page's message protocol, shared by static/search-worker.js and search.js's main-thread
   * fallback: fetchFrom(base) reads search/ files over HTTP; answer(engine, message) turns
   * {id, query, venue, topic, limit} (or {id, warm}) into {id, total, results}, {id, warm} or
   * {id, error}, and never rejects. ``engine`` may be a promise of an engine. */
  function fetchFrom(base) {
    return function (relPath) {
      return fetch(new URL(relPath, base).href).then(function (response) {
        if (!response.ok) throw new Error("search/" + relPath + ": HTTP " + response.status);
        return response.json();
      });
    };
  }

  function answer(engine, message) {
    return Promise.resolve(engine).then(function (ready) {
      if (message.warm) {
        return ready.facets().then(function () { return { id: message.id, warm: true }; });
      }
      return ready.search(String(message.query || ""), {
        venue: message.venue || null, topic: message.topic || null, limit: message.limit,
      }).then(function (found) {
        return { id: message.id, total: found.total, results: found.results };
      });
    }).catch(function (error) {
      return { id: message.id, error: error && error.message ? String(error.message) : String(error || "unknown error") };
    });
  }

  return {
    createEngine: createEngine,
    fetchFrom: fetchFrom,
    answer: answer,
    parseQuery: parseQuery,
    mergeChunks: mergeChunks,
    ChunkMap: ChunkMap,
    snippet: snippet,
  };
});
