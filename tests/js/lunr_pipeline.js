/* lunr.js's own text pipeline, for comparing papercat/lunrjs.py with it.
 *
 * stdin {"mode": "pipeline", "inputs": [text]}: stdout [[term]] — each text through lunr.tokenizer,
 *   lunr.trimmer, lunr.stopWordFilter and lunr.stemmer, as lunr.Builder indexes a field.
 * stdin {"mode": "stem", "inputs": [word]}: stdout [stem] — lunr.stemmer alone.
 * stdin {"mode": "unicode"}: stdout {"separators": [code point], "lower": {code point: lower-cased}}
 *   over every code point but surrogates: where lunr.tokenizer.separator matches, and where
 *   toLowerCase changes the character.
 */
"use strict";
const fs = require("fs");
const path = require("path");

const lunr = require(path.resolve(__dirname, "..", "..", "static", "vendor", "lunr", "lunr.js"));
const input = JSON.parse(fs.readFileSync(0, "utf8"));
let out;
if (input.mode === "pipeline") {
  const pipeline = new lunr.Pipeline();
  pipeline.add(lunr.trimmer, lunr.stopWordFilter, lunr.stemmer);
  out = input.inputs.map((text) => pipeline.run(lunr.tokenizer(text)).map((token) => token.toString()));
} else if (input.mode === "stem") {
  out = input.inputs.map((word) => lunr.stemmer(new lunr.Token(word)).toString());
} else if (input.mode === "unicode") {
  out = { separators: [], lower: {} };
  const separator = new RegExp("^(?:" + lunr.tokenizer.separator.source + ")$");
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (separator.test(ch)) out.separators.push(cp);
    const lower = ch.toLowerCase();
    if (lower !== ch) out.lower[cp] = lower;
  }
} else {
  throw new Error("unknown mode " + input.mode);
}
process.stdout.write(JSON.stringify(out));
