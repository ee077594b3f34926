/* Checks a built search/ folder with lunr.js: every chunk loads as a lunr index, and the
 * manifest's chunk map (engine.js ChunkMap) sends every term, and every prefix of it, to its chunk in
 * its segment.
 *
 * stdin {"site": "<built site folder>"}; stdout {"chunks", "terms", "errors": [message]}.
 */
"use strict";
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..", "..");
const lunr = require(path.join(ROOT, "static", "vendor", "lunr", "lunr.js"));
const PapercatSearch = require(path.join(ROOT, "static", "search", "engine.js"));

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const folder = path.join(input.site, "search");
const read = (rel) => JSON.parse(fs.readFileSync(path.join(folder, rel), "utf8"));
const manifest = read("manifest.json");
const map = new PapercatSearch.ChunkMap(manifest);
const errors = [];
let terms = 0;
manifest.chunkFiles.forEach(([file, size], n) => {
  const bytes = fs.statSync(path.join(folder, file)).size;
  if (bytes !== size) errors.push(`${file}: manifest says ${size} bytes, file has ${bytes}`);
  const chunk = read(file);
  const index = lunr.Index.load(chunk);
  for (const [term] of chunk.invertedIndex) {
    terms += 1;
    if (!index.invertedIndex[term]) errors.push(`${file}: ${JSON.stringify(term)} not loaded`);
    const own = map.segments[map.segmentOf[n]].fileOf(term);
    if (own !== n) errors.push(`${JSON.stringify(term)} is in ${file} but its segment's map says ${own}`);
    if (!map.filesOf(term).includes(n)) errors.push(`${JSON.stringify(term)}: the map's files miss ${file}`);
    for (let k = 1; k <= term.length; k++) {
      if (!map.filesWithPrefix(term.slice(0, k)).includes(n)) {
        errors.push(`prefix ${JSON.stringify(term.slice(0, k))} of ${JSON.stringify(term)} misses ${file}`);
      }
    }
  }
});
const report = { chunks: manifest.chunkFiles.length, terms, errors: errors.slice(0, 50) };
process.stdout.write(JSON.stringify(report));
