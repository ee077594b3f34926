/* Runs static/search/engine.js in Node for the Python tests and the benchmark.
 *
 * stdin: {"site": "<built site folder>", "queries": [{"q": "...", "venue": null, "topic": null,
 *          "limit": 20}], "fresh": false, "options": {}}
 * stdout: [{"total", "results", "fetched": [relPath], "ms", "bytes"}] one per query, in order; a
 * query {"facets": true} gives {"facets", "fetched", "bytes"} instead.
 * With "fresh", every query gets a new engine (nothing cached), as a first visit would; "options"
 * go to createEngine (e.g. {"typos": false}).
 */
"use strict";
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..", "..");
const lunr = require(path.join(ROOT, "static", "vendor", "lunr", "lunr.js"));
const PapercatSearch = require(path.join(ROOT, "static", "search", "engine.js"));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const folder = path.join(input.site, "search");
  const fetchJson = async (relPath) => {
    return JSON.parse(await fs.promises.readFile(path.join(folder, relPath), "utf8"));
  };
  let engine = null;
  const out = [];
  for (const query of input.queries) {
    if (!engine || input.fresh) {
      engine = PapercatSearch.createEngine(Object.assign({ lunr, fetchJson }, input.options));
    }
    const before = engine.fetched().length;
    if (query.facets) {
      const facets = await engine.facets();
      out.push({ facets, fetched: engine.fetched().slice(before), bytes: engine.bytesLoaded() });
      continue;
    }
    const started = process.hrtime.bigint();
    const found = await engine.search(query.q, { venue: query.venue || null, topic: query.topic || null,
                                                 limit: query.limit == null ? 20 : query.limit });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    out.push({ total: found.total, results: found.results, fetched: engine.fetched().slice(before), ms,
               bytes: engine.bytesLoaded() });
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + "\n");
  process.exit(1);
});
