/**
 * Which files `analyze` skips before parsing, and which are tests. Pure functions of the path and
 * the bytes, so they can be unit-tested on literals.
 */
import type { SkipReason } from './types.js'
import { remembered } from '../runtime/remembered.js'

export const DEFAULT_MAX_FILE_BYTES = 1_000_000

const BINARY_SNIFF_BYTES = 8000
const MINIFIED_SNIFF_BYTES = 64 * 1024
const MINIFIED_AVERAGE_LINE = 300
const MINIFIED_LONGEST_LINE = 5000
const GENERATED_MARKER_LINES = 5

const VENDORED_SEGMENTS: ReadonlySet<string> = new Set([
  'node_modules',
  'vendor',
  'third_party',
  'bower_components',
  'Pods',
  '.git',
])

const GENERATED_FILE_NAMES: ReadonlySet<string> = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'Cargo.lock',
  'go.sum',
  'poetry.lock',
  'composer.lock',
  'Gemfile.lock',
])

const GENERATED_NAME = /\.pb\.go$|_pb2(_grpc)?\.pyi?$|\.generated\.[^/]+$|\.g\.dart$|\.designer\.cs$/i
const MINIFIED_NAME = /\.min\.(js|mjs|cjs|css)$/i

/**
 * gitattributes patterns for files whose content history gitwhy never needs (lockfiles, minified
 * bundles). History mining marks them `-diff`, so git reports "Binary files differ" instead of
 * diffing them: on a pnpm repository that is most of the `git log -p` output.
 */
export const NO_CONTENT_DIFF_PATTERNS: readonly string[] = [...GENERATED_FILE_NAMES, 'Pipfile.lock', '*.min.js', '*.min.mjs', '*.min.cjs', '*.min.css', '*.js.map', '*.css.map']
const MINIFIABLE_NAME = /\.(js|mjs|cjs|css)$/i
const GENERATED_MARKER = /@generated|Code generated .*DO NOT EDIT/

/**
 * Why a file should not be parsed, or null when it should. Checked cheapest first: path rules,
 * size, then content sniffing.
 */
export function classifyFile(
  path: string,
  content: Buffer,
  opts: { maxBytes: number },
): SkipReason | null {
  const segments = path.split('/')
  const name = segments[segments.length - 1]
  for (let i = 0; i < segments.length - 1; i++) {
    if (VENDORED_SEGMENTS.has(segments[i])) return 'vendored'
  }
  if (MINIFIED_NAME.test(name)) return 'minified'
  if (GENERATED_FILE_NAMES.has(name) || GENERATED_NAME.test(name)) return 'generated'
  if (content.length > opts.maxBytes) return 'too_large'
  if (isBinary(content)) return 'binary'
  if (hasGeneratedMarker(content)) return 'generated'
  if (MINIFIABLE_NAME.test(name) && looksMinified(content)) return 'minified'
  return null
}

/** A NUL byte in the first bytes: what git takes for a binary file. */
export function isBinary(content: Buffer): boolean {
  const end = Math.min(content.length, BINARY_SNIFF_BYTES)
  for (let i = 0; i < end; i++) if (content[i] === 0) return true
  return false
}

function hasGeneratedMarker(content: Buffer): boolean {
  let end = 0
  for (let line = 0; line < GENERATED_MARKER_LINES && end < content.length; line++) {
    const next = content.indexOf(10, end)
    end = next < 0 ? content.length : next + 1
  }
  return GENERATED_MARKER.test(content.toString('utf8', 0, end))
}

function looksMinified(content: Buffer): boolean {
  const end = Math.min(content.length, MINIFIED_SNIFF_BYTES)
  if (end === 0) return false
  let lines = 0
  let lineStart = 0
  for (let i = 0; i <= end; i++) {
    if (i === end || content[i] === 10) {
      if (i - lineStart > MINIFIED_LONGEST_LINE) return true
      lines++
      lineStart = i + 1
    }
  }
  return end / lines > MINIFIED_AVERAGE_LINE
}

const TEST_DIRECTORIES: ReadonlySet<string> = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  '__mocks__',
  'testdata',
])

const TEST_FILE_NAME =
  /(^|[._-])(test|spec)s?\.[cm]?[jt]sx?$|_test\.(go|py|rb|exs?|dart)$|^test_[^/]*\.py$|_spec\.rb$|(Test|Tests|IT)\.(java|kt|scala|cs)$/

/**
 * A path that holds tests by convention (a test directory or a test file name); remembered, since it
 * is asked of every file in several phases of an update (~9,000 paths on prettier, ~10 ms a pass).
 */
export const isTestPath: (path: string) => boolean = remembered((path) => {
  const segments = path.split('/')
  return TEST_FILE_NAME.test(segments[segments.length - 1]) || segments.slice(0, -1).some((s) => TEST_DIRECTORIES.has(s))
}, 100_000)
