#!/usr/bin/env node
// TextMate grammar tests: tokenizes test/fixture.llmsys and checks the scope
// of chosen tokens, then tokenizes every .llmsys file of stdlib/,
// test/validation/ and examples/ and checks that every line tokenizes (no
// time-out, no "invalid" scope, every character covered, comments and
// strings closed at the end of each file).
//
// Needs the npm packages vscode-textmate and vscode-oniguruma, found through
// node_modules here or NODE_PATH (editors/vscode/check.sh installs them).
'use strict';
const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const here = __dirname;
const extension = path.resolve(here, '..');
const root = path.resolve(extension, '../..');

// [line (1-based), token text, occurrence (1-based), expected scope]
const EXPECT = [
  [1, 'import', 1, 'keyword.control.import.llmsys'],
  [1, 'std.systems.nvidia', 1, 'entity.name.namespace.llmsys'],
  [2, 'my/models.llmsys', 1, 'string.quoted.double.llmsys'],
  [2, '// a comment', 1, 'comment.line.double-slash.llmsys'],
  [5, '   comment ', 1, 'comment.block.llmsys'],
  [6, 'model', 1, 'storage.type.entity.llmsys'],
  [6, 'my_gpt', 1, 'entity.name.type.llmsys'],
  [6, 'extends', 1, 'storage.modifier.llmsys'],
  [6, 'gpt3_175b', 1, 'entity.other.inherited-class.llmsys'],
  [7, 'max_seq', 1, 'variable.other.property.llmsys'],
  [7, '=', 1, 'keyword.operator.assignment.llmsys'],
  [7, '4096', 1, 'constant.numeric.llmsys'],
  [10, 'accelerator', 1, 'storage.type.entity.llmsys'],
  [11, '700', 1, 'constant.numeric.llmsys'],
  [11, 'W', 1, 'keyword.other.unit.llmsys'],
  [12, 'TB/s', 1, 'keyword.other.unit.llmsys'],
  [13, 'hbm', 1, 'variable.other.property.llmsys'],
  [13, '80', 1, 'constant.numeric.llmsys'],
  [13, 'GiB', 1, 'keyword.other.unit.llmsys'],
  [14, 'GB/s', 1, 'keyword.other.unit.llmsys'],
  [15, 'mm^2', 1, 'keyword.other.unit.llmsys'],
  [16, 'GB', 1, 'keyword.other.unit.llmsys'],
  [16, '/', 1, 'keyword.operator.arithmetic.llmsys'],
  [16, '2', 1, 'constant.numeric.llmsys'],
  [17, 'true', 1, 'constant.language.boolean.llmsys'],
  [18, '\\"', 1, 'constant.character.escape.llmsys'],
  [20, 'selective', 1, 'constant.language.enum.llmsys'],
  [21, 'network', 1, 'variable.other.property.llmsys'],
  [21, 'nvlink4', 1, 'entity.other.inherited-class.llmsys'],
  [22, 'ttft', 1, 'variable.other.property.llmsys'],
  [22, '<=', 1, 'keyword.operator.comparison.llmsys'],
  [22, 'ms', 1, 'keyword.other.unit.llmsys'],
  [23, '8192', 1, 'constant.numeric.llmsys'],
  [23, 'mapping', 1, 'variable.other.property.llmsys'],
  [26, 'sweep', 1, 'storage.type.entity.llmsys'],
  [26, 'over', 1, 'storage.modifier.llmsys'],
  [26, 'pretrain', 1, 'entity.other.inherited-class.llmsys'],
  [27, 'mapping.tp', 1, 'variable.other.property.llmsys'],
  [27, 'in', 1, 'keyword.other.llmsys'],
  [28, '..', 1, 'keyword.operator.range.llmsys'],
  [28, 'step', 1, 'keyword.other.llmsys'],
  [29, 'where', 1, 'keyword.control.llmsys'],
  [29, 'and', 1, 'keyword.operator.logical.llmsys'],
  [29, 'not', 1, 'keyword.operator.logical.llmsys'],
  [29, 'peak_memory', 1, 'variable.other.llmsys'],
  [30, 'minimize', 1, 'keyword.control.llmsys'],
  [31, 'pareto', 1, 'keyword.control.llmsys'],
  [32, 'keep', 1, 'keyword.control.llmsys'],
  [35, 'hf_config', 1, 'support.function.builtin.llmsys'],
  [36, 'expect', 1, 'keyword.control.llmsys'],
  [36, '0.35', 1, 'constant.numeric.llmsys'],
];

// Tokens that must NOT carry a scope: [line, text, occurrence, scope].
const REFUSE = [
  [23, 'mapping', 1, 'keyword.other.unit.llmsys'],  // the next member, not a unit
  [28, 'step', 1, 'keyword.other.unit.llmsys'],     // a keyword, not a unit
];

function loadRegistry() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  const onigLib = oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength)).then(() => ({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }));
  const grammarPath = path.join(extension, 'syntaxes', 'llmsys.tmLanguage.json');
  return new vsctm.Registry({
    onigLib,
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.llmsys') return null;
      return vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath);
    },
  });
}

function tokenize(grammar, text) {
  const lines = text.split(/\r?\n/);
  let stack = vsctm.INITIAL;
  const out = [];
  const problems = [];
  lines.forEach((line, i) => {
    const r = grammar.tokenizeLine(line, stack, 1000);
    if (r.stoppedEarly) problems.push(`line ${i + 1}: tokenizing stopped early`);
    let end = 0;
    for (const t of r.tokens) {
      if (t.startIndex !== end) problems.push(`line ${i + 1}: gap at column ${end + 1}`);
      end = t.endIndex;
      if (t.scopes.some((s) => s.startsWith('invalid'))) {
        problems.push(`line ${i + 1}: invalid token ${JSON.stringify(line.slice(t.startIndex, t.endIndex))}`);
      }
    }
    out.push(r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes })));
    stack = r.ruleStack;
  });
  return { lines: out, stack, problems };
}

function scopesOf(tokenLine, text, occurrence) {
  let seen = 0;
  for (const t of tokenLine) {
    if (t.text === text && ++seen === occurrence) return t.scopes;
  }
  return null;
}

function files(dir, acc) {
  if (!fs.existsSync(dir)) return acc;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, acc);
    else if (e.name.endsWith('.llmsys')) acc.push(p);
  }
  return acc;
}

async function main() {
  const grammar = await loadRegistry().loadGrammar('source.llmsys');
  let passed = 0;
  let failed = 0;
  const fail = (msg) => { failed++; console.log(`FAIL ${msg}`); };

  const fixture = tokenize(grammar, fs.readFileSync(path.join(here, 'fixture.llmsys'), 'utf8'));
  for (const [line, text, occ, scope] of EXPECT) {
    const scopes = scopesOf(fixture.lines[line - 1] || [], text, occ);
    if (!scopes) fail(`fixture.llmsys:${line}: no token ${JSON.stringify(text)}; tokens: ${JSON.stringify((fixture.lines[line - 1] || []).map((t) => t.text))}`);
    else if (!scopes.includes(scope)) fail(`fixture.llmsys:${line}: ${JSON.stringify(text)} has ${scopes.join(' ')}, expected ${scope}`);
    else passed++;
  }
  for (const [line, text, occ, scope] of REFUSE) {
    const scopes = scopesOf(fixture.lines[line - 1] || [], text, occ);
    if (!scopes) fail(`fixture.llmsys:${line}: no token ${JSON.stringify(text)}`);
    else if (scopes.includes(scope)) fail(`fixture.llmsys:${line}: ${JSON.stringify(text)} has ${scope}`);
    else passed++;
  }
  const assertions = passed + failed;

  const all = [];
  for (const d of ['stdlib', 'test/validation', 'examples']) files(path.join(root, d), all);
  all.sort();
  let badFiles = 0;
  for (const f of all) {
    const r = tokenize(grammar, fs.readFileSync(f, 'utf8'));
    const open = r.stack.depth > 1 ? ['a block comment or string left open at the end of the file'] : [];
    const problems = r.problems.concat(open);
    if (problems.length) {
      badFiles++;
      fail(`${path.relative(root, f)}: ${problems.slice(0, 3).join('; ')}`);
    }
  }
  console.log(`textmate: ${assertions} scope assertions, ${all.length} files tokenized, ${badFiles} files with problems`);
  console.log(`${passed + all.length - badFiles} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
