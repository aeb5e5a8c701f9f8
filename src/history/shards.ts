import { linkSync, mkdirSync, writeFileSync, copyFileSync } from 'node:fs'
import path from 'node:path'
import { listedFiles, parseIndexJson, readIndexFile, readIndexJson } from '../services/index-integrity.js'

/**
 * Keyed JSON records spread over up to 64 files by a hash of the key, so that a lookup reads one
 * small file however large the repository: `<dir>/<name>/<xx>.json`, each an object key → value.
 * An update rewrites the shards its keys fall in and hard-links the others from the previous index
 * (index directories are never modified once written). 256 shards a store (schema 15 and before)
 * made an update link, stat, hash-check and later delete ~1,000 files, ~0.1 s of its time; 64
 * keep a lookup's shard small (~100 KB for prettier's file cache, ~0.6 MB for git/git's commits).
 */
const SHARDS = 64

export function shardOf(key: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return ((h >>> 0) % SHARDS).toString(16).padStart(2, '0')
}

function shardFile(dir: string, name: string, shard: string): string {
  return path.join(dir, name, `${shard}.json`)
}

/** A shard of an index directory, checked against its manifest; {} when the build wrote none. */
function readShard<T>(dir: string, name: string, shard: string): Record<string, T> {
  return readIndexJson<Record<string, T>>(dir, `${name}/${shard}.json`) ?? {}
}

/** An object for records keyed by path: no prototype, so that a key `__proto__` or `constructor` is a key like any other. */
function records<T>(from: Record<string, T> = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, from)
}

function group<T>(entries: Iterable<[string, T]>): Map<string, Record<string, T>> {
  const shards = new Map<string, Record<string, T>>()
  for (const [key, value] of entries) {
    const s = shardOf(key)
    let obj = shards.get(s)
    if (!obj) shards.set(s, (obj = records<T>()))
    obj[key] = value
  }
  return shards
}

export function writeShards<T>(dir: string, name: string, entries: Iterable<[string, T]>): void {
  mkdirSync(path.join(dir, name), { recursive: true })
  for (const [s, obj] of group(entries)) writeFileSync(shardFile(dir, name, s), JSON.stringify(obj))
}

/**
 * The shards of `previous` with `entries` added (or replaced, by key) and `remove` keys dropped:
 * shards with no change are hard-linked (copied where links are not possible).
 */
export function updateShards<T>(previous: string, dir: string, name: string, entries: Iterable<[string, T]>, remove: Iterable<string> = []): void {
  mkdirSync(path.join(dir, name), { recursive: true })
  const changes = group(entries)
  const removals = new Map<string, string[]>()
  for (const key of remove) {
    const s = shardOf(key)
    removals.set(s, [...(removals.get(s) ?? []), key])
  }
  const existing = listedFiles(previous, name).map((f) => path.posix.basename(f, '.json'))
  for (const s of new Set([...existing, ...changes.keys()])) {
    const from = shardFile(previous, name, s)
    const to = shardFile(dir, name, s)
    if (!changes.has(s) && !removals.has(s)) {
      linkOrCopy(from, to)
      continue
    }
    const obj = records(readShard<T>(previous, name, s))
    for (const key of removals.get(s) ?? []) delete obj[key]
    Object.assign(obj, changes.get(s) ?? {})
    writeFileSync(to, JSON.stringify(obj))
  }
}

/** Reads shards on demand (each checked against the index's manifest) and keeps what it read. */
export class ShardReader<T> {
  private readonly loaded = new Map<string, Record<string, T>>()
  private all: Record<string, T> | null = null

  constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {}

  get(key: string): T | undefined {
    if (this.all) return Object.prototype.hasOwnProperty.call(this.all, key) ? this.all[key] : undefined
    const s = shardOf(key)
    let obj = this.loaded.get(s)
    if (!obj) {
      obj = readShard<T>(this.dir, this.name, s)
      this.loaded.set(s, obj)
    }
    return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined
  }

  /**
   * Every record of the shards whose raw text `prefilter` matches, read without keeping them:
   * a search parses only the few shards that can hold a match.
   */
  *scan(prefilter: RegExp | null): Generator<T> {
    for (const rel of listedFiles(this.dir, this.name)) {
      const text = readIndexFile(this.dir, rel)!.toString('utf8')
      if (prefilter) {
        prefilter.lastIndex = 0
        if (!prefilter.test(text)) continue
      }
      yield* Object.values(parseIndexJson<Record<string, T>>(this.dir, rel, text))
    }
  }

  /**
   * Every record, shard by shard (reads every shard, keeps none): without entries()'s one object
   * keyed by all of them (~9,000 keys hashed into it on prettier, to be listed again).
   */
  values(): T[] {
    if (this.all) return Object.values(this.all)
    const out: T[] = []
    for (const rel of listedFiles(this.dir, this.name)) {
      const shard = readIndexJson<Record<string, T>>(this.dir, rel)
      if (shard) for (const key in shard) out.push(shard[key])
    }
    return out
  }

  /** Every record (reads every shard once). */
  entries(): Record<string, T> {
    if (!this.all) {
      const all: Record<string, T> = {}
      for (const rel of listedFiles(this.dir, this.name)) Object.assign(all, readIndexJson<Record<string, T>>(this.dir, rel))
      this.all = all
    }
    return this.all
  }
}

/** A file of an index shared with the next one: hard-linked, copied where links are refused. */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to)
  } catch {
    copyFileSync(from, to)
  }
}
