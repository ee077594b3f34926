/* The reference for papercat's build time: lunr.js (Node) building one index over the same abstracts.
 *
 *   node benchmarks/lunrjs_reference.js CONTENT_OR_LISTINGS_FOLDER [--abstract-only-too]
 *
 * Reads every *.txt listing in the folder (or in its listings/ subfolder): the first line is the
 * header, the abstracts are the blank-line-separated blocks after it. Then builds ONE lunr index
 * with the vendored static/vendor/lunr/lunr.js, ref "id" and the fields and boosts of papercat's
 * search index (papercat/search.py FIELDS: title 10, names 5, abstract 1), and serialises it with
 * JSON.stringify. Only the build and the serialisation are timed (process.hrtime), not reading the
 * files nor preparing the field texts:
 *
 * - abstract: the abstract as written (papercat indexes its plain text, the same for these abstracts);
 * - title: the abstract's first sentence, cut at a word to 100 characters (papercat derives a title
 *   of at most 100 characters from the abstract by its own rules: similar length, other words);
 * - names: the coined names, found with papercat's method_names rules (mixed-case words, words with
 *   letters and digits); papercat's names field also holds topic names and keyphrases, not here.
 *
 * With --abstract-only-too it also builds and serialises an index of the abstract field alone.
 * stdout: one JSON line {"seconds", "cpu_s" (user + system), "docs", "fields", "bytes", "abstract_only_seconds"?,
 * "abstract_only_bytes"?}; a readable summary goes to stderr.
 */
"use strict";
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const lunr = require(path.join(ROOT, "static", "vendor", "lunr", "lunr.js"));

const FIELDS = [["title", 10], ["names", 5], ["abstract", 1]];
const WORD = /[A-Za-z0-9_][\w.+-]*[\w+]|\w/g;
const CAMEL = /[a-z].*[A-Z]|[A-Z]{2,}[a-z]|[A-Z][a-z]+[A-Z]/;
const DIGITS = /^(?=.*[A-Za-z])(?=.*\d)/;

function readAbstracts(folder) {
  const listings = fs.existsSync(path.join(folder, "listings")) ? path.join(folder, "listings") : folder;
  const abstracts = [];
  for (const name of fs.readdirSync(listings).filter((n) => n.endsWith(".txt")).sort()) {
    const text = fs.readFileSync(path.join(listings, name), "utf8").replace(/\r\n?/g, "\n");
    const body = text.slice(text.indexOf("\n") + 1);  // the first line is the listing's header
    for (const block of body.split(/\n[ \t]*\n/)) {
      const abstract = block.trim().replace(/\s*\n\s*/g, " ");
      if (abstract) abstracts.push(abstract);
    }
  }
  return abstracts;
}

function title(abstract) {
  const end = abstract.search(/[.!?]\s/);
  let first = end < 0 ? abstract : abstract.slice(0, end);
  if (first.length > 100) first = first.slice(0, first.lastIndexOf(" ", 100));
  return first;
}

function names(text) {
  const found = [];
  for (const word of new Set(text.match(WORD) || [])) {
    if (word.length < 3 || /^[a-z]+$/.test(word)) continue;
    if (CAMEL.test(word) || (word.length >= 4 && DIGITS.test(word))) found.push(word);
  }
  return found.join(" ; ");
}

function timeIndex(docs, fields) {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const index = lunr(function () {
    this.ref("id");
    for (const [name, boost] of fields) this.field(name, { boost });
    for (const doc of docs) this.add(doc);
  });
  const json = JSON.stringify(index);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { seconds, cpu_s: (used.user + used.system) / 1e6, bytes: Buffer.byteLength(json) };
}

function main() {
  const args = process.argv.slice(2);
  const folder = args.find((a) => !a.startsWith("--"));
  if (!folder) {
    console.error("usage: node benchmarks/lunrjs_reference.js CONTENT_OR_LISTINGS_FOLDER [--abstract-only-too]");
    process.exit(2);
  }
  const abstracts = readAbstracts(folder);
  const docs = abstracts.map((abstract, i) => {
    const head = title(abstract);
    return { id: String(i), title: head, names: names(`${head} ${abstract}`), abstract };
  });
  const out = { docs: docs.length, fields: FIELDS.map(([name, boost]) => `${name}^${boost}`) };
  const full = timeIndex(docs, FIELDS);
  out.seconds = full.seconds;
  out.cpu_s = full.cpu_s;
  out.bytes = full.bytes;
  console.error(`lunr.js ${lunr.version}: ${docs.length} docs, fields ${out.fields.join(", ")}: ` +
                `build+serialise ${full.seconds.toFixed(2)} s, ${(full.bytes / 1e6).toFixed(1)} MB JSON`);
  if (args.includes("--abstract-only-too")) {
    const one = timeIndex(docs.map((d) => ({ id: d.id, abstract: d.abstract })), [["abstract", 1]]);
    out.abstract_only_seconds = one.seconds;
    out.abstract_only_bytes = one.bytes;
    console.error(`lunr.js ${lunr.version}: ${docs.length} docs, field abstract only: ` +
                  `build+serialise ${one.seconds.toFixed(2)} s, ${(one.bytes / 1e6).toFixed(1)} MB JSON`);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main();
