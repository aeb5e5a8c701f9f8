#!/usr/bin/env node
// gitwhy's call graph against the TypeScript compiler (issue 11, "Quality"): for random functions
// and methods of an indexed TypeScript repository, the callers and callees the TypeScript
// LanguageService call hierarchy reports (prepareCallHierarchy, provideCallHierarchyIncomingCalls
// / OutgoingCalls) versus `gitwhy context --json`.
//
//   node bench/codegraph-ts-oracle.mjs <indexed-repo> [--tsconfig PATH] [--functions N] [--seed S]
//        [--misses N] [--json]
//
// --tsconfig: the project the oracle compiles (default tsconfig.json; a solution config with only
// `references` takes the union of the referenced projects' files). The sample: N (default 100)
// functions and methods of the program's non-test .ts/.tsx files, by a seeded random pick.
//
// Both sides are compared as gitwhy symbols: a TypeScript call site is attributed to the
// innermost gitwhy symbol whose lines hold it (or the file's `<module>`), as gitwhy attributes a
// call; a TypeScript callee is the gitwhy symbol of that name declared at that line. A callee
// outside the repository (lib.d.ts, node_modules) is not counted: gitwhy has no edge for it by
// design; a constructor is its class (gitwhy links `new X()` to X). A function TypeScript sees
// but gitwhy has no symbol for (a callback, a named function expression) is part of the gitwhy
// symbol around it, as its calls are in gitwhy: its outgoing calls count for that symbol. Files
// outside the TypeScript program are left out on both sides. Accessors are left out: TypeScript
// counts a property read of a getter as a call, gitwhy counts calls. A callee the repository declares but gitwhy has no symbol for (an interface's method
// signature, an object literal's method) is counted as `unmappable`, apart from the recall.
// A TypeScript declaration is the gitwhy symbol of its own name at its line; an overload
// signature gitwhy has no symbol for is its implementation (the declaration with a body).
// Precision and recall are reported per confidence threshold and per reason, with a sample of
// the misses (what TypeScript saw and gitwhy did not, and the reverse). The call hierarchy lists
// no outgoing call to a class property or `const` holding a function (`this.#cachedBody()`,
// `c.body()`), though its incoming calls of that property list the caller: an edge gitwhy reports
// and the call hierarchy does not is asked of the type checker (the symbol of the name called on
// one of the edge's lines), and counted "confirmed by the checker" when it is exactly the
// declaration gitwhy links. Both numbers are printed: the call hierarchy's alone, and with these.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'
import { BIN, ROOT, benchArgs } from './lib.mjs'

const ts = createRequire(join(ROOT, 'package.json'))('typescript')
const { opt, repo: repoArg, json } = benchArgs('node bench/codegraph-ts-oracle.mjs <indexed-repo> [--tsconfig PATH] [--functions N] [--seed S] [--misses N] [--json]')
const repo = resolve(repoArg)
const N = Number(opt('functions', 100))
const MISSES = Number(opt('misses', 15))
let seed = Number(opt('seed', 1))
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
const THRESHOLDS = [0, 0.5, 0.6, 0.85, 0.9]

const gitwhy = (args) => JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json', '--repo', repo], { maxBuffer: 1 << 28, encoding: 'utf8' }))

// --- the TypeScript program ---
function parseProject(configPath) {
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
  if (!parsed) throw new Error(`cannot read ${configPath}`)
  if (parsed.fileNames.length > 0 || !parsed.projectReferences?.length) return parsed
  const refs = parsed.projectReferences.map((r) => parseProject(ts.resolveProjectReferencePath(r)))
  return { options: refs.find((r) => r.fileNames.length)?.options ?? parsed.options, fileNames: [...new Set(refs.flatMap((r) => r.fileNames))] }
}
const project = parseProject(resolve(repo, opt('tsconfig', 'tsconfig.json')))
const texts = new Map()
const textOf = (f) => {
  if (!texts.has(f)) texts.set(f, ts.sys.readFile(f) ?? '')
  return texts.get(f)
}
const service = ts.createLanguageService({
  getScriptFileNames: () => project.fileNames,
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => (ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(textOf(f)) : undefined),
  getCurrentDirectory: () => repo,
  getCompilationSettings: () => project.options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
}, ts.createDocumentRegistry())

// --- gitwhy's symbols, to attribute the oracle's positions ---
// in id order: the seeded sample must not depend on the order a build loaded the rows in
const symbols = gitwhy(['cypher', '--max-rows', '0', 'MATCH (s:Symbol) RETURN s.id AS id, s.path AS path, s.name AS name, s.kind AS kind, s.start_line AS first, s.end_line AS last ORDER BY id']).rows
const byPath = new Map()
for (const s of symbols) {
  if (!byPath.has(s.path)) byPath.set(s.path, [])
  byPath.get(s.path).push(s)
}
const rel = (f) => relative(repo, f).split('\\').join('/')
const inRepo = (f) => !rel(f).startsWith('..') && !f.includes('/node_modules/')
const lineOf = (f, pos) => ts.getLineAndCharacterOfPosition(service.getProgram().getSourceFile(f), pos).line + 1
/** The innermost gitwhy symbol of the file holding the line (`<module>` when none); with `name`, one of that name. */
function symbolAt(file, line, name) {
  const here = (byPath.get(rel(file)) ?? []).filter((s) => s.kind !== 'module' && s.first <= line && line <= s.last && (!name || s.name === name))
  here.sort((a, b) => a.last - a.first - (b.last - b.first))
  return here[0]?.id ?? (name ? null : `${rel(file)}#<module>`)
}

const classAt = (file, line) => (byPath.get(rel(file)) ?? []).filter((s) => s.kind === 'class' && s.first <= line && line <= s.last).sort((a, b) => a.last - a.first - (b.last - b.first))[0]?.id ?? null

const checker = service.getProgram().getTypeChecker()
const isExternal = (file) => !inRepo(file) || file.endsWith('.d.ts')
/** The declaration whose name starts at `pos` (a call hierarchy item's selectionSpan). */
function declarationAt(file, pos) {
  const sf = service.getProgram().getSourceFile(file)
  let found
  const visit = (node) => {
    if (found || pos < node.pos || pos >= node.end) return
    if (node.name && node.name.getStart(sf) === pos) found = node
    else ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}
/**
 * The gitwhy symbol of a declaration TypeScript names: the symbol of that name (the declaration's
 * own name, not the call hierarchy's display name, which qualifies a private name: `Context.#x`)
 * whose lines hold it; a constructor is its class. An overload signature gitwhy has no symbol for
 * is its implementation (the declaration of the same symbol with a body): TypeScript names the
 * signature a call matched, gitwhy the function that runs.
 */
function symbolOfDeclaration(decl) {
  const sf = decl.getSourceFile()
  if (ts.isConstructorDeclaration(decl)) return classAt(sf.fileName, lineOf(sf.fileName, decl.getStart(sf)))
  if (!decl.name) return null
  const id = symbolAt(sf.fileName, lineOf(sf.fileName, decl.name.getStart(sf)), decl.name.getText(sf))
  if (id || !ts.isFunctionLike(decl) || decl.body) return id
  const impl = checker.getSymbolAtLocation(decl.name)?.declarations?.find((d) => ts.isFunctionLike(d) && d.body && d.name)
  return impl ? symbolAt(impl.getSourceFile().fileName, lineOf(impl.getSourceFile().fileName, impl.name.getStart(impl.getSourceFile())), impl.name.getText(impl.getSourceFile())) : null
}

// --- the type checker, for the edges gitwhy reports and the call hierarchy does not list ---
// The call hierarchy lists no outgoing call to a property holding a function (`#cachedBody =
// (k) => …`, `fetch = (req) => …`): the checker resolves such a call to that property and its
// function. An edge is confirmed when a call on one of its lines, in the caller (as attributed
// on both sides), resolves to exactly the declaration gitwhy links.
const callLike = (n) => ts.isCallExpression(n) || ts.isNewExpression(n) || ts.isTaggedTemplateExpression(n) || ts.isJsxOpeningElement(n) || ts.isJsxSelfClosingElement(n)
const callsByFile = new Map()
/** The call-like expressions of a file by line: the line of the call and of the called name (`x\n  .m()`). */
function callsOn(file, line) {
  if (!callsByFile.has(file)) {
    const sf = service.getProgram().getSourceFile(file)
    const byLine = new Map()
    const add = (l, n) => (byLine.get(l) ?? byLine.set(l, new Set()).get(l)).add(n)
    const visit = (node) => {
      if (callLike(node)) {
        add(lineOf(file, node.getStart(sf)), node)
        const name = calledName(node)
        if (name) add(lineOf(file, name.getStart(sf)), node)
      }
      ts.forEachChild(node, visit)
    }
    if (sf) visit(sf)
    callsByFile.set(file, byLine)
  }
  return callsByFile.get(file).get(line) ?? []
}
function calledName(call) {
  let e = ts.isTaggedTemplateExpression(call) ? call.tag : ts.isJsxOpeningElement(call) || ts.isJsxSelfClosingElement(call) ? call.tagName : call.expression
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression
  return ts.isPropertyAccessExpression(e) ? e.name : ts.isIdentifier(e) || ts.isPrivateIdentifier(e) ? e : null
}
/**
 * A declaration a call runs, as the call hierarchy itself counts them (isValidCallHierarchyDeclaration
 * in TypeScript's callHierarchy.ts): a function or method with a body, a class, or a function or
 * class expression initializing a `const` or a class property. A `let` may be reassigned: no.
 */
const runs = (d) => (ts.isFunctionLike(d) && !!d.body) || ts.isClassLike(d) || (!!d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer) || ts.isClassExpression(d.initializer)) && (ts.isPropertyDeclaration(d) || (ts.isVariableDeclaration(d) && !!(ts.getCombinedNodeFlags(d) & ts.NodeFlags.Const))))
/**
 * The gitwhy symbols the checker resolves a call to: the declarations of the called name's symbol
 * (aliases followed). Not the resolved signature's declaration: a value typed `typeof f` has f's
 * signature whatever function it holds.
 */
function checkerTargets(call) {
  const out = new Set()
  const name = calledName(call)
  let symbol = name && checker.getSymbolAtLocation(name)
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
  for (const d of symbol?.declarations ?? []) {
    if (isExternal(d.getSourceFile().fileName)) continue
    // an overload signature stands for its implementation; any other declaration must be one a call runs
    if (!runs(d) && !(ts.isFunctionLike(d) && !d.body && d.name)) continue
    const id = symbolOfDeclaration(d)
    if (id) out.add(id)
  }
  return out
}
/** Whether the checker resolves a call on one of `lines` of `callerId`'s file, attributed to `callerId`, to `calleeId`. */
function checkerConfirms(callerId, callerPath, lines, calleeId) {
  const file = join(repo, callerPath)
  for (const line of lines ?? []) {
    if (symbolAt(file, line) !== callerId) continue
    for (const call of callsOn(file, line)) if (checkerTargets(call).has(calleeId)) return true
  }
  return false
}

/** Positions of the functions inside `s` that gitwhy has no symbol for (their calls are s's). */
function innerFunctions(file, s) {
  const sf = service.getProgram().getSourceFile(file)
  const out = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const line = lineOf(file, node.getStart(sf))
      if (line > s.first && line <= s.last && symbolAt(file, line) === s.id) out.push(node.name ? node.name.getStart(sf) : node.getStart(sf))
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

// --- the sample ---
const isTest = (p) => /(^|\/)(__tests__|tests?)\/|\.(test|spec)\.[cm]?tsx?$/.test(p)
const programFiles = new Set(project.fileNames.map(rel))
// a name two symbols of one file share (object literals' methods: vuejs/core's `updated`) is no target `context` can name alone
const allIds = new Set(symbols.map((s) => s.id))
const candidates = symbols.filter((s) => (s.kind === 'function' || s.kind === 'method') && s.name !== 'constructor' && !s.id.includes('~') && !allIds.has(`${s.id}~2`) && programFiles.has(s.path) && /\.tsx?$/.test(s.path) && !s.path.endsWith('.d.ts') && !isTest(s.path))
const sample = []
while (sample.length < Math.min(N, candidates.length)) {
  const s = candidates[Math.floor(random() * candidates.length)]
  if (!sample.includes(s)) sample.push(s)
}

/** The offset of the symbol's name in its declaration's first lines. */
function namePosition(file, s) {
  const text = textOf(file)
  let offset = 0
  for (let l = 1; l < s.first; l++) offset = text.indexOf('\n', offset) + 1
  const re = new RegExp(`(?<![\\w$])${s.name.replace(/[$]/g, '\\$')}(?![\\w$])`, 'g')
  re.lastIndex = offset
  const m = re.exec(text)
  return m && lineOf(file, m.index) <= s.last ? m.index : -1
}

const stats = { functions: 0, skipped: 0, unmappable: 0, external: 0, accessors: 0 }
const pairs = { callers: [], callees: [] } // { target, id, oracle: bool, gitwhy: {confidence, reason} | null }
for (const s of sample) {
  const file = join(repo, s.path)
  const pos = namePosition(file, s)
  const items = pos < 0 ? undefined : service.prepareCallHierarchy(file, pos)
  const item = Array.isArray(items) ? items[0] : items
  // an accessor's "calls" are property reads, which gitwhy does not count as calls
  if (!item || item.kind === ts.ScriptElementKind.memberGetAccessorElement || item.kind === ts.ScriptElementKind.memberSetAccessorElement) {
    stats.skipped++
    continue
  }
  stats.functions++
  const oracle = { callers: new Set(), callees: new Set() }
  for (const c of service.provideCallHierarchyIncomingCalls(file, pos)) {
    if (!inRepo(c.from.file)) continue
    for (const span of c.fromSpans) oracle.callers.add(symbolAt(c.from.file, lineOf(c.from.file, span.start)))
  }
  for (const at of [pos, ...innerFunctions(file, s)]) for (const c of service.provideCallHierarchyOutgoingCalls(file, at)) {
    if (!inRepo(c.to.file) || c.to.file.endsWith('.d.ts')) {
      stats.external++
      continue
    }
    if (c.to.kind === ts.ScriptElementKind.memberGetAccessorElement || c.to.kind === ts.ScriptElementKind.memberSetAccessorElement) {
      stats.accessors++
      continue
    }
    const line = lineOf(c.to.file, c.to.selectionSpan.start)
    const decl = c.to.kind === ts.ScriptElementKind.constructorImplementationElement ? null : declarationAt(c.to.file, c.to.selectionSpan.start)
    const id = c.to.kind === ts.ScriptElementKind.constructorImplementationElement ? classAt(c.to.file, line) : decl ? symbolOfDeclaration(decl) : symbolAt(c.to.file, line, c.to.name)
    if (id && !id.endsWith('#<module>')) oracle.callees.add(id)
    else stats.unmappable++
  }
  oracle.callers.delete(s.id)
  oracle.callees.delete(s.id)
  const ctx = gitwhy(['context', `${s.path}:${s.id.slice(s.path.length + 1)}`, '--limit', '0', '--min-confidence', '0'])
  for (const side of ['callers', 'callees']) {
    const found = new Map(ctx[side].filter((c) => programFiles.has(c.path)).map((c) => [c.id, c]))
    for (const id of new Set([...oracle[side], ...found.keys()])) {
      const g = found.get(id)
      const inHierarchy = oracle[side].has(id)
      const checked = !inHierarchy && !!g && (side === 'callers' ? checkerConfirms(id, g.path, g.lines, s.id) : checkerConfirms(s.id, s.path, g.lines, id))
      pairs[side].push({ target: s.id, id, oracle: inHierarchy, checker: checked, gitwhy: g ? { confidence: g.confidence, reason: g.reason } : null })
    }
  }
}

const pct = (a, b) => (b === 0 ? null : Math.round((1000 * a) / b) / 10)
/** With `checker`, the truth is the call hierarchy's pairs and the pairs the checker confirms. */
function score(list, min, checker = false) {
  const truth = (p) => p.oracle || (checker && p.checker)
  const kept = list.filter((p) => p.gitwhy && p.gitwhy.confidence >= min)
  const tp = kept.filter(truth).length
  const oracle = list.filter(truth).length
  return { threshold: min, oracle, gitwhy: kept.length, true_positives: tp, precision: pct(tp, kept.length), recall: pct(tp, oracle) }
}
/** Precision per reason, or per rule (a reason and its confidence: the rules of a reason differ in confidence; ambiguous edges split theirs). */
function byReason(list, rule = false) {
  const out = {}
  for (const p of list) {
    if (!p.gitwhy) continue
    const key = rule && p.gitwhy.reason !== 'ambiguous' ? `${p.gitwhy.reason} ${p.gitwhy.confidence}` : p.gitwhy.reason
    const r = (out[key] ??= { edges: 0, correct: 0, checker: 0 })
    r.edges++
    if (p.oracle) r.correct++
    else if (p.checker) r.checker++
  }
  for (const r of Object.values(out)) {
    r.precision = pct(r.correct, r.edges)
    r.precision_with_checker = pct(r.correct + r.checker, r.edges)
  }
  return out
}
const report = {
  repo,
  tsconfig: opt('tsconfig', 'tsconfig.json'),
  typescript: ts.version,
  sample: { asked: sample.length, ...stats },
  ...Object.fromEntries(['callers', 'callees'].map((side) => [side, {
    by_threshold: THRESHOLDS.map((t) => score(pairs[side], t)),
    by_threshold_with_checker: THRESHOLDS.map((t) => score(pairs[side], t, true)),
    by_reason: byReason(pairs[side]),
    by_rule: byReason(pairs[side], true),
  }])),
  misses: Object.fromEntries(['callers', 'callees'].map((side) => [side, {
    missed: pairs[side].filter((p) => p.oracle && !(p.gitwhy?.confidence >= 0.5)).slice(0, MISSES).map((p) => `${p.target} ${side === 'callers' ? '←' : '→'} ${p.id}${p.gitwhy ? ` (${p.gitwhy.reason} ${p.gitwhy.confidence})` : ''}`),
    wrong: pairs[side].filter((p) => !p.oracle && !p.checker && p.gitwhy && p.gitwhy.confidence >= 0.5).slice(0, MISSES).map((p) => `${p.target} ${side === 'callers' ? '←' : '→'} ${p.id} (${p.gitwhy.reason} ${p.gitwhy.confidence})`),
    checker: pairs[side].filter((p) => p.checker).slice(0, MISSES).map((p) => `${p.target} ${side === 'callers' ? '←' : '→'} ${p.id} (${p.gitwhy.reason} ${p.gitwhy.confidence})`),
  }])),
}
if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
else {
  const out = []
  out.push(`${repo} (${report.tsconfig}, TypeScript ${ts.version}): ${stats.functions} functions (${stats.skipped} skipped: accessors, no call hierarchy item); callees outside the repository: ${stats.external}, accessors read: ${stats.accessors}, declared but no gitwhy symbol: ${stats.unmappable}`)
  for (const side of ['callers', 'callees']) {
    out.push(`\n${side}: threshold  oracle  gitwhy  correct  precision  recall   | with the checker: oracle  correct  precision  recall`)
    report[side].by_threshold.forEach((r, i) => {
      const c = report[side].by_threshold_with_checker[i]
      out.push(`  ≥ ${String(r.threshold).padEnd(9)}${String(r.oracle).padStart(6)}${String(r.gitwhy).padStart(8)}${String(r.true_positives).padStart(9)}${String(r.precision ?? '-').padStart(10)} %${String(r.recall ?? '-').padStart(7)} %   |${String(c.oracle).padStart(24)}${String(c.true_positives).padStart(9)}${String(c.precision ?? '-').padStart(10)} %${String(c.recall ?? '-').padStart(7)} %`)
    })
    const rule = ([k, v]) => `${k} ${v.correct}${v.checker ? `+${v.checker}` : ''}/${v.edges} (${v.precision} %${v.checker ? `, ${v.precision_with_checker} %` : ''})`
    out.push(`  by reason (correct+confirmed by the checker / edges): ${Object.entries(report[side].by_reason).map(rule).join(', ')}`)
    out.push(`  by rule (reason confidence): ${Object.entries(report[side].by_rule).sort(([a], [b]) => (a < b ? -1 : 1)).map(rule).join(', ')}`)
    out.push(`  missed (TypeScript only, or below 0.5):\n    ${report.misses[side].missed.join('\n    ') || '-'}`)
    out.push(`  wrong (gitwhy only, ≥ 0.5, not confirmed by the checker):\n    ${report.misses[side].wrong.join('\n    ') || '-'}`)
    out.push(`  confirmed by the checker, not listed by the call hierarchy:\n    ${report.misses[side].checker.join('\n    ') || '-'}`)
  }
  process.stdout.write(`${out.join('\n')}\n`)
}
service.dispose()

