import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { SkipReason } from '../parse/types.js'

/**
 * Files at the indexed HEAD that analyze did not index, with the reason, so that a question about
 * one says it was skipped and why instead of "not an indexed file". An index built before this
 * file existed simply has none.
 */
export type SkippedReason = SkipReason | 'symlink' | 'submodule'

export const SKIPPED_FILES = 'skipped.json'

/**
 * The files skipped for what their content is (binary, generated, vendored, minified), with their
 * blob: the next analyze skips the same blob at the same path again without reading it (prettier's
 * 113 such files are 2.7 MB that every update read and classified again).
 */
export const SKIPPED_BLOBS = 'skipped-blobs.json'

/** Path → [reason, blob id]. */
export type SkippedBlobs = Record<string, [SkipReason, string]>

const EXPLANATION: Record<SkippedReason, string> = {
  binary: 'it is a binary file',
  generated: 'it is a generated file',
  vendored: 'it is vendored (third-party) code',
  minified: 'it is minified',
  too_large: 'it is larger than --max-file-bytes',
  symlink: 'it is a symbolic link',
  submodule: 'it is a submodule',
}

const byPath = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0)

export function writeSkippedFiles(dir: string, skipped: Map<string, SkippedReason>, blobs: Map<string, [SkipReason, string]> = new Map()): void {
  writeFileSync(path.join(dir, SKIPPED_FILES), JSON.stringify(Object.fromEntries([...skipped].sort(byPath))))
  writeFileSync(path.join(dir, SKIPPED_BLOBS), JSON.stringify(Object.fromEntries([...blobs].sort(byPath))))
}

/** Path → reason; empty for an index without the file (or an unreadable one: the answer just says less). */
export function readSkippedFiles(dir: string): Map<string, SkippedReason> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(path.join(dir, SKIPPED_FILES), 'utf8')) as Record<string, SkippedReason>))
  } catch {
    return new Map()
  }
}

export function explainSkip(reason: SkippedReason): string {
  return EXPLANATION[reason] ?? reason
}
