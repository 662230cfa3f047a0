// The search by shape's shared cases, as the node suites read them: the
// table test/shape/cases.json, and the cases every entry of
// lib/shape/grammar.cjs makes. crates/core/src/shape/tests.rs reads the
// same table (include_str!) and makes the same grammar cases by the same
// rules (grammar_cases there), so each tokenizer is held to one list.
import fs from 'node:fs';
import { createRequire } from 'node:module';

export const CASES = JSON.parse(fs.readFileSync(new URL('./cases.json', import.meta.url), 'utf8'));
export const GRAMMAR = createRequire(import.meta.url)('../../lib/shape/grammar.cjs');

/**
 * [[source, tokens]] for every punctuator and keyword of `grammar`:
 *   each punctuator p, spaced and run together: `a p b`, `ap b` (but `#`,
 *     which starts a private name there), both id:a punct:p id:b; and
 *     `a p /r/`: a regular expression follows p, unless p is one a `/`
 *     divides after (divisionAfterPunct), whose case is `(a) / 2`-like;
 *   each control head w: `w (x) /r/` (a regular expression after its `)`),
 *     and `o.w (x) / 2` (a property so named heads nothing);
 *   each keyword w a regular expression follows: `w /r/`, and `o.w / 2`.
 */
export function grammarCases(grammar) {
  const cases = [];
  const division = new Set(grammar.divisionAfterPunct);
  for (const p of grammar.punctuators) {
    cases.push([`a ${p} b`, ['id:a', `punct:${p}`, 'id:b']]);
    if (p !== '#') cases.push([`a${p}b`, ['id:a', `punct:${p}`, 'id:b']]);
    if (!division.has(p)) cases.push([`a ${p} /r/`, ['id:a', `punct:${p}`, 'regex']]);
  }
  const opener = { ')': '(', ']': '[' };
  for (const p of grammar.divisionAfterPunct) {
    const open = opener[p];
    const tokens = open === undefined ? ['id:a', `punct:${p}`] : [`punct:${open}`, 'id:a', `punct:${p}`];
    cases.push([`${open ?? ''}a${p} / 2`, [...tokens, 'punct:/', 'num:2']]);
  }
  for (const w of grammar.controlHeads) {
    cases.push([`${w} (x) /r/`, [`id:${w}`, 'punct:(', 'id:x', 'punct:)head', 'regex']]);
    cases.push([`o.${w} (x) / 2`, ['id:o', 'punct:.', `id:${w}`, 'punct:(', 'id:x', 'punct:)', 'punct:/', 'num:2']]);
  }
  for (const w of grammar.regexAfterWord) {
    cases.push([`${w} /r/`, [`id:${w}`, 'regex']]);
    cases.push([`o.${w} / 2`, ['id:o', 'punct:.', `id:${w}`, 'punct:/', 'num:2']]);
  }
  return cases;
}
