import { describe, expect, it } from 'vitest'
import { decodeBytes, decodeLatin1 } from '../../src/git/decode.js'
import { DiffStreamParser, unquotePath, type DiffRecord, type FileDiff } from '../../src/git/diff-parser.js'
import { logArgs, parseLogHeader } from '../../src/git/history-reader.js'

/*
 * Literal output of real git (2.39.5), captured in throw-away repositories with exactly the argv of
 * src/git/history-reader.ts (plus the -c options of src/git/run.ts BASE_ARGS):
 *
 *   git -c core.quotePath=true -c log.showRoot=true log --topo-order --diff-merges=first-parent \
 *     -p -U0 -M --no-color --no-ext-diff --no-textconv --full-index \
 *     '--format=%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%B%x02' HEAD --
 *
 * and, for MERGE_PASS, `git diff-tree --stdin --always -p -U0 -M ... --format=%x01%H%x02` fed
 * "MERGE PARENT2". Strings are latin1 (one char per byte, non-ASCII bytes written as \xNN), exactly
 * as the parser sees them; they are fed as Buffer.from(text, 'latin1').
 */

const REAL_CHANGE = [
  "\x0171d17037465d45eaad2c8edf63584d4f52bd45da\x0036b97836d956ad854fc55be0d31a672f082ec15b\x00Ada Lovelace\x00ada@example.com\x001704596645\x001704596645\x00Real change",
  "\x02",
  "",
  "diff --git a/fmt.js b/fmt.js",
  "index 80eda4893822e08fd6a2c0c11e61b65ab464b1f5..4a6046da51f596999fbd2738bbed2d935c32e153 100644",
  "--- a/fmt.js",
  "+++ b/fmt.js",
  "@@ -2 +2 @@ function f() {",
  "-    return 1;",
  "+    return 2;",
].join('\n') + '\n'

const REINDENT = [
  "\x0136b97836d956ad854fc55be0d31a672f082ec15b\x00bcab0df1fceca9eb86e16bc29c8b21255170cbb4\x00Ada Lovelace\x00ada@example.com\x001704510245\x001704510245\x00Reindent",
  "\x02",
  "",
  "diff --git a/fmt.js b/fmt.js",
  "index 2d62113200938eb34ed10df1ff823d2c802b0ba0..80eda4893822e08fd6a2c0c11e61b65ab464b1f5 100644",
  "--- a/fmt.js",
  "+++ b/fmt.js",
  "@@ -2 +2 @@ function f() {",
  "-return 1;",
  "+    return 1;",
].join('\n') + '\n'

const SHUFFLE = [
  "\x01bcab0df1fceca9eb86e16bc29c8b21255170cbb4\x00c5d75e1a26059208707f94b203b4d11a60b56527\x00Ada Lovelace\x00ada@example.com\x001704423845\x001704423845\x00Shuffle files around",
  "\x02",
  "",
  "diff --git a/bin.dat b/bin.dat",
  "index 0f49c4ae77b43dff338093c78e009676e7e308ba..0d4028e90c42e17b17cb45ec56f977847a05caba 100644",
  "Binary files a/bin.dat and b/bin.dat differ",
  "diff --git a/del.txt b/del.txt",
  "deleted file mode 100644",
  "index 85e62d4fa2e3ffd309f335a9748ec4cba81210f8..0000000000000000000000000000000000000000",
  "--- a/del.txt",
  "+++ /dev/null",
  "@@ -1,2 +0,0 @@",
  "-gone",
  "-soon",
  "diff --git a/renamed.txt b/dir/renamed.txt",
  "similarity index 89%",
  "rename from renamed.txt",
  "rename to dir/renamed.txt",
  "index c9e9e05f445e6b772f19fea1449759b7458a446e..659346f053d845927aa5809112af189d2390620d 100644",
  "--- a/renamed.txt",
  "+++ b/dir/renamed.txt",
  "@@ -4 +4 @@ three",
  "-four",
  "+FOUR",
  "diff --git a/moved.txt b/moved2.txt",
  "similarity index 100%",
  "rename from moved.txt",
  "rename to moved2.txt",
  "diff --git a/new.txt b/new.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..5786b13ddf42af9492f8f94243b3397cded5d953",
  "--- /dev/null",
  "+++ b/new.txt",
  "@@ -0,0 +1,2 @@",
  "+brand",
  "+new",
  "diff --git a/old name.txt b/old name.txt",
  "index b77b4eb1d946f923f61785536da9ca5af6909f06..04ec35a6dc0776b83fdb3d9d238007c7dea360c8 100644",
  "--- a/old name.txt\t",
  "+++ b/old name.txt\t",
  "@@ -2,0 +3 @@ y",
  "+z",
  "diff --git a/run.sh b/run.sh",
  "old mode 100644",
  "new mode 100755",
  "diff --git \"a/\\303\\274.txt\" \"b/\\303\\274.txt\"",
  "index b39b3b6d7f072529bdf7de8d150c8586a143bad3..8ec1f0ad5c3f8d2f68ac48fb5c36265c22661efe 100644",
  "--- \"a/\\303\\274.txt\"",
  "+++ \"b/\\303\\274.txt\"",
  "@@ -1,0 +2 @@ umlaut",
  "+more",
].join('\n') + '\n'

const TRIM = [
  "\x01c5d75e1a26059208707f94b203b4d11a60b56527\x00a7f0d14f019480b7ceb62d4175e58e8b7e7b2764\x00Ada Lovelace\x00ada@example.com\x001704337445\x001704337445\x00Trim b and touch c",
  "",
  "The body explains",
  "over several lines.",
  "",
  "Fixes #12",
  "\x02",
  "",
  "diff --git a/b.txt b/b.txt",
  "index 40912aae9594a31e713aebab4a85c983c25b261d..899042fe217bbfaf92f34d8e6a5fbf20a43bd083 100644",
  "--- a/b.txt",
  "+++ b/b.txt",
  "@@ -4,2 +3,0 @@ b3",
  "-b4",
  "-b5",
  "diff --git a/c.txt b/c.txt",
  "index 3db2affb966d98160734abe907f15e88127554d2..c8d9a97cb5a5957b778eef2f2260fe80232f569f 100644",
  "--- a/c.txt",
  "+++ b/c.txt",
  "@@ -2 +2 @@ first",
  "-last",
  "\\ No newline at end of file",
  "+LAST",
  "\\ No newline at end of file",
].join('\n') + '\n'

const MULTI_HUNK = [
  "\x01a7f0d14f019480b7ceb62d4175e58e8b7e7b2764\x009c0127beb0ba2665e2b74f080918955b1433e1aa\x00Ada Lovelace\x00ada@example.com\x001704251045\x001704251045\x00Edit a.txt in several places",
  "\x02",
  "",
  "diff --git a/a.txt b/a.txt",
  "index fa2da6e55caa540725b55c04d13f1e42b4c725ce..3049d1426dc0b1c4c0ffd9b07acf482c3f14af5b 100644",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -2 +2 @@ line 1",
  "-line 2",
  "+LINE 2",
  "@@ -3,0 +4,2 @@ line 3",
  "+new A",
  "+new B",
  "@@ -5,2 +6,0 @@ line 4",
  "-line 5",
  "-line 6",
  "@@ -8,2 +8,3 @@ line 7",
  "-line 8",
  "-line 9",
  "+line 8 changed",
  "+line 9 changed",
  "+extra",
].join('\n') + '\n'

const INITIAL = [
  "\x019c0127beb0ba2665e2b74f080918955b1433e1aa\x00\x00Ada Lovelace\x00ada@example.com\x001704164645\x001704164645\x00Initial import",
  "\x02",
  "",
  "diff --git a/a.txt b/a.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..fa2da6e55caa540725b55c04d13f1e42b4c725ce",
  "--- /dev/null",
  "+++ b/a.txt",
  "@@ -0,0 +1,10 @@",
  "+line 1",
  "+line 2",
  "+line 3",
  "+line 4",
  "+line 5",
  "+line 6",
  "+line 7",
  "+line 8",
  "+line 9",
  "+line 10",
  "diff --git a/b.txt b/b.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..40912aae9594a31e713aebab4a85c983c25b261d",
  "--- /dev/null",
  "+++ b/b.txt",
  "@@ -0,0 +1,6 @@",
  "+b1",
  "+b2",
  "+b3",
  "+b4",
  "+b5",
  "+b6",
  "diff --git a/bin.dat b/bin.dat",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..0f49c4ae77b43dff338093c78e009676e7e308ba",
  "Binary files /dev/null and b/bin.dat differ",
  "diff --git a/c.txt b/c.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..3db2affb966d98160734abe907f15e88127554d2",
  "--- /dev/null",
  "+++ b/c.txt",
  "@@ -0,0 +1,2 @@",
  "+first",
  "+last",
  "\\ No newline at end of file",
  "diff --git a/del.txt b/del.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..85e62d4fa2e3ffd309f335a9748ec4cba81210f8",
  "--- /dev/null",
  "+++ b/del.txt",
  "@@ -0,0 +1,2 @@",
  "+gone",
  "+soon",
  "diff --git a/fmt.js b/fmt.js",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..2d62113200938eb34ed10df1ff823d2c802b0ba0",
  "--- /dev/null",
  "+++ b/fmt.js",
  "@@ -0,0 +1,3 @@",
  "+function f() {",
  "+return 1;",
  "+}",
  "diff --git a/moved.txt b/moved.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..1e395f2a2cc7a4eb70a20ce75a277933f71a968b",
  "--- /dev/null",
  "+++ b/moved.txt",
  "@@ -0,0 +1,8 @@",
  "+alpha",
  "+beta",
  "+gamma",
  "+delta",
  "+epsilon",
  "+zeta",
  "+eta",
  "+theta",
  "diff --git a/old name.txt b/old name.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..b77b4eb1d946f923f61785536da9ca5af6909f06",
  "--- /dev/null",
  "+++ b/old name.txt\t",
  "@@ -0,0 +1,2 @@",
  "+x",
  "+y",
  "diff --git a/renamed.txt b/renamed.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..c9e9e05f445e6b772f19fea1449759b7458a446e",
  "--- /dev/null",
  "+++ b/renamed.txt",
  "@@ -0,0 +1,10 @@",
  "+one",
  "+two",
  "+three",
  "+four",
  "+five",
  "+six",
  "+seven",
  "+eight",
  "+nine",
  "+ten",
  "diff --git a/run.sh b/run.sh",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..4163036efa65bd4a469e752267498f01ea36a55c",
  "--- /dev/null",
  "+++ b/run.sh",
  "@@ -0,0 +1,2 @@",
  "+#!/bin/sh",
  "+echo hi",
  "diff --git \"a/\\303\\274.txt\" \"b/\\303\\274.txt\"",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..b39b3b6d7f072529bdf7de8d150c8586a143bad3",
  "--- /dev/null",
  "+++ \"b/\\303\\274.txt\"",
  "@@ -0,0 +1 @@",
  "+umlaut",
].join('\n') + '\n'

const EDGE = [
  "\x0117a21932ccbbcf8eaf25da5cd966a2ed48fe4f7b\x00dd388ed9c167a00dcf493a059bdec7706d1472c0\x00Ada Lovelace\x00ada@example.com\x001706832000\x001706832000\x00edge cases",
  "\x02",
  "",
  "diff --git a/dash.txt b/dash.txt",
  "index 637811ab25ca780a0b028506d2c2a44700bd9458..f59f81f6738b5f77c16be57d1f662dde3be5ed03 100644",
  "--- a/dash.txt",
  "+++ b/dash.txt",
  "@@ -1,2 +1,2 @@",
  "--- sig",
  "-++ plus",
  "+--- x",
  "++++ y",
  "diff --git a/empty.txt b/empty.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
  "diff --git a/gone.bin b/gone.bin",
  "deleted file mode 100644",
  "index badc806ed7d7937d6fcb727b07d0e90ec752bf9f..0000000000000000000000000000000000000000",
  "Binary files a/gone.bin and /dev/null differ",
  "diff --git a/sp ace.txt b/new space.txt",
  "similarity index 100%",
  "rename from sp ace.txt",
  "rename to new space.txt",
  "diff --git \"a/say \\\"hi\\\".txt\" \"b/say \\\"hi\\\".txt\"",
  "index bca70f35318f31dd1d1d1d2d2e64c19b880899ff..8a08eba85c872cd83776ed37dd9c6de453c789c2 100644",
  "--- \"a/say \\\"hi\\\".txt\"\t",
  "+++ \"b/say \\\"hi\\\".txt\"\t",
  "@@ -1,0 +2 @@ q",
  "+r",
  "diff --git \"a/t\\tb.txt\" b/tb.txt",
  "similarity index 100%",
  "rename from \"t\\tb.txt\"",
  "rename to tb.txt",
  "diff --git \"a/\\303\\274 x.txt\" \"b/\\303\\274 x.txt\"",
  "index 78981922613b2afb6025042ff6bd878ac1994e85..422c2b7ab3b3c668038da977e4e93a5fc623169c 100644",
  "--- \"a/\\303\\274 x.txt\"\t",
  "+++ \"b/\\303\\274 x.txt\"\t",
  "@@ -1,0 +2 @@ a",
  "+b",
].join('\n') + '\n'

const EDGE_ROOT = [
  "\x01dd388ed9c167a00dcf493a059bdec7706d1472c0\x00\x00Ada Lovelace\x00ada@example.com\x001706745600\x001706745600\x00init",
  "\x02",
  "",
  "diff --git a/dash.txt b/dash.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..637811ab25ca780a0b028506d2c2a44700bd9458",
  "--- /dev/null",
  "+++ b/dash.txt",
  "@@ -0,0 +1,3 @@",
  "+-- sig",
  "+++ plus",
  "+keep",
  "diff --git a/gone.bin b/gone.bin",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..badc806ed7d7937d6fcb727b07d0e90ec752bf9f",
  "Binary files /dev/null and b/gone.bin differ",
  "diff --git \"a/say \\\"hi\\\".txt\" \"b/say \\\"hi\\\".txt\"",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..bca70f35318f31dd1d1d1d2d2e64c19b880899ff",
  "--- /dev/null",
  "+++ \"b/say \\\"hi\\\".txt\"\t",
  "@@ -0,0 +1 @@",
  "+q",
  "diff --git a/sp ace.txt b/sp ace.txt",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..b68fde2a051d9af2fe3ff4c96c0898e5a3212e4d",
  "--- /dev/null",
  "+++ b/sp ace.txt\t",
  "@@ -0,0 +1 @@",
  "+k",
  "diff --git \"a/t\\tb.txt\" \"b/t\\tb.txt\"",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..8cc35a3d55c810ba1f998f398e475feb0e5f6b8a",
  "--- /dev/null",
  "+++ \"b/t\\tb.txt\"",
  "@@ -0,0 +1 @@",
  "+tab",
  "diff --git \"a/\\303\\274 x.txt\" \"b/\\303\\274 x.txt\"",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..78981922613b2afb6025042ff6bd878ac1994e85",
  "--- /dev/null",
  "+++ \"b/\\303\\274 x.txt\"\t",
  "@@ -0,0 +1 @@",
  "+a",
].join('\n') + '\n'

const CAFE = [
  "\x0107197d574e99408c0c4d12156bc68a181a6c243a\x000182cdac898fdbdf6e7cad167f804fc7ec7ed9de\x00Zo\xc3\xab \xc3\x9cnal\x00zoe@example.com\x001709251200\x001709251200\x00Ajoute caf\xc3\xa9 \xe2\x98\x95",
  "\x02",
  "",
  "diff --git a/f.txt b/f.txt",
  "index 62d421578f91f5247787bb0b302ccabdd81e988f..9b44f6ac10bbb49707ce4ff6cdcf1e95d5116b34 100644",
  "--- a/f.txt",
  "+++ b/f.txt",
  "@@ -3,0 +4 @@ side",
  "+caf\xc3\xa9",
].join('\n') + '\n'

const MERGE_FIRST_PARENT = [
  "\x010182cdac898fdbdf6e7cad167f804fc7ec7ed9de\x000a0a1a89795cdb0d2244fc3ab5c0fd9d340c3fc3 c4f134080dbfb8a930175db8b24b93114f470791\x00Zo\xc3\xab \xc3\x9cnal\x00zoe@example.com\x001709251200\x001709251200\x00Merge branch 'side'",
  "\x02",
  "",
  "diff --git a/f.txt b/f.txt",
  "index 9d54840001f8d59afea3a458f813443e7514e10b..62d421578f91f5247787bb0b302ccabdd81e988f 100644",
  "--- a/f.txt",
  "+++ b/f.txt",
  "@@ -2,0 +3 @@ base",
  "+side",
].join('\n') + '\n'

const MERGE_PASS = [
  "\x010182cdac898fdbdf6e7cad167f804fc7ec7ed9de\x02",
  "",
  "diff --git a/f.txt b/f.txt",
  "index 9cc520c78ae002cc7255611f097fa35b47ba3619..62d421578f91f5247787bb0b302ccabdd81e988f 100644",
  "--- a/f.txt",
  "+++ b/f.txt",
  "@@ -0,0 +1 @@",
  "+main",
].join('\n') + '\n'


const NON_LATIN1 = [
  "\x011f3062dc296ee8e0d011b9f3e18952b70e182bd9\x0084f1738c72e4997e19edc4f0514bcab3cec1e1f8\x00Ada Lovelace\x00ada@example.com\x001712016000\x001712016000\x00non-latin1 names",
  "\x02",
  "",
  "diff --git \"a/\\321\\204\\320\\260\\320\\271\\320\\273.txt\" \"b/\\342\\230\\225 \\321\\204\\320\\260\\320\\271\\320\\273.txt\"",
  "similarity index 100%",
  "rename from \"\\321\\204\\320\\260\\320\\271\\320\\273.txt\"",
  "rename to \"\\342\\230\\225 \\321\\204\\320\\260\\320\\271\\320\\273.txt\"",
  "diff --git \"a/\\346\\227\\245\\346\\234\\254.txt\" \"b/\\346\\227\\245\\346\\234\\254.txt\"",
  "index 587be6b4c3f93f93c489c0111bba5596147a26cb..206b37888d9b7affbbead76084a0419c3c868078 100644",
  "--- \"a/\\346\\227\\245\\346\\234\\254.txt\"",
  "+++ \"b/\\346\\227\\245\\346\\234\\254.txt\"",
  "@@ -1,0 +2 @@ x",
  "+z",
].join('\n') + '\n'


const LOG1 = REAL_CHANGE + REINDENT + SHUFFLE + TRIM + MULTI_HUNK + INITIAL
const ALL = LOG1 + EDGE + EDGE_ROOT + CAFE + MERGE_FIRST_PARENT

function parseChunks(chunks: Buffer[]): DiffRecord[] {
  const out: DiffRecord[] = []
  const p = new DiffStreamParser((r) => out.push(r))
  for (const c of chunks) p.push(c)
  p.end()
  return out
}

function parse(text: string): DiffRecord[] {
  return parseChunks([Buffer.from(text, 'latin1')])
}

function only(text: string): DiffRecord {
  const recs = parse(text)
  expect(recs).toHaveLength(1)
  return recs[0]
}

function file(rec: DiffRecord, path: string): FileDiff {
  const f = rec.files.find((x) => x.path === path)
  if (!f) throw new Error(`no file ${JSON.stringify(path)} in [${rec.files.map((x) => JSON.stringify(x.path)).join(', ')}]`)
  return f
}

/** Deterministic PRNG (mulberry32) for the random chunking. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('fixtures match the argv gitwhy runs', () => {
  it('logArgs is the command the samples were captured with', () => {
    expect(logArgs()).toEqual([
      '-c', 'log.showRoot=true', 'log', '--no-walk=unsorted', '--stdin', '--diff-merges=first-parent',
      '-p', '--raw', '--no-abbrev', '-U0', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index',
      '--format=%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%B%x02',
    ])
  })
})

describe('DiffStreamParser: records and headers', () => {
  it('splits a log into one record per commit, newest first, with the header up to \\x02', () => {
    const recs = parse(LOG1)
    expect(recs.map((r) => r.header.slice(0, 7))).toEqual(['71d1703', '36b9783', 'bcab0df', 'c5d75e1', 'a7f0d14', '9c0127b'])
    expect(recs[0].header).toBe(
      '71d17037465d45eaad2c8edf63584d4f52bd45da\x0036b97836d956ad854fc55be0d31a672f082ec15b\x00Ada Lovelace\x00ada@example.com\x00' +
        '1704596645\x001704596645\x00Real change\n',
    )
    expect(recs.map((r) => r.files.length)).toEqual([1, 1, 8, 2, 1, 11])
  })

  it('keeps a multi-line message in the header (the header spans lines until \\x02)', () => {
    const rec = only(TRIM)
    expect(rec.header.split('\x00')[6]).toBe('Trim b and touch c\n\nThe body explains\nover several lines.\n\nFixes #12\n')
    const h = parseLogHeader(rec.header)
    expect(h).toEqual({
      sha: 'c5d75e1a26059208707f94b203b4d11a60b56527',
      parents: ['a7f0d14f019480b7ceb62d4175e58e8b7e7b2764'],
      authorName: 'Ada Lovelace',
      authorEmail: 'ada@example.com',
      authorDate: '2024-01-04T03:04:05.000Z',
      committerDate: '2024-01-04T03:04:05.000Z',
      message: 'Trim b and touch c\n\nThe body explains\nover several lines.\n\nFixes #12',
    })
    // the body lines must not leak into the file list
    expect(rec.files.map((f) => f.path)).toEqual(['b.txt', 'c.txt'])
  })

  it('parses root and merge headers (no parents / two parents) and decodes UTF-8 text', () => {
    const [root] = parse(INITIAL)
    expect(parseLogHeader(root.header).parents).toEqual([])
    const merge = parseLogHeader(only(MERGE_FIRST_PARENT).header)
    expect(merge.parents).toEqual(['0a0a1a89795cdb0d2244fc3ab5c0fd9d340c3fc3', 'c4f134080dbfb8a930175db8b24b93114f470791'])
    expect(merge.message).toBe("Merge branch 'side'")
    const cafe = parseLogHeader(only(CAFE).header)
    expect(cafe.authorName).toBe('Zoë Ünal')
    expect(cafe.message).toBe('Ajoute café ☕')
    expect(decodeLatin1('caf\xc3\xa9')).toBe('café')
    expect(decodeLatin1('plain')).toBe('plain')
  })

  it('parses the merge pass format (%x01%H%x02) with its diff against the second parent', () => {
    const rec = only(MERGE_PASS)
    expect(rec.header).toBe('0182cdac898fdbdf6e7cad167f804fc7ec7ed9de')
    expect(rec.files).toEqual([
      { path: 'f.txt', oldPath: 'f.txt', status: 'M', binary: false, hunks: [0, 0, 0, 1], additions: 1, deletions: 0, whitespaceOnly: false },
    ])
  })

  it('ignores text before the first record and emits a record with no files', () => {
    const recs = parse('garbage line\n+not a diff\n\x01abc\x02\n\n\x01def\x02\n\ndiff --git a/x b/x\nnew file mode 100644\n')
    expect(recs).toEqual([
      { header: 'abc', files: [], oids: [] },
      { header: 'def', files: [{ path: 'x', oldPath: 'x', status: 'A', binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false }], oids: [] },
    ])
  })
})

describe('DiffStreamParser: hunks', () => {
  it('converts a multi-hunk modification to 0-based half-open [oldStart, oldEnd, newStart, newEnd]', () => {
    const a = file(only(MULTI_HUNK), 'a.txt')
    expect(a.hunks).toEqual([
      1, 2, 1, 2, // @@ -2 +2 @@        single line, counts omitted
      3, 3, 3, 5, // @@ -3,0 +4,2 @@    pure insertion after old line 3
      4, 6, 6, 6, // @@ -5,2 +6,0 @@    pure deletion, sits after new line 6
      7, 9, 7, 10, // @@ -8,2 +8,3 @@   2 lines replaced by 3
    ])
    expect(a).toMatchObject({ path: 'a.txt', oldPath: 'a.txt', status: 'M', binary: false, additions: 6, deletions: 5, whitespaceOnly: false })
  })

  it('pure deletion @@ -4,2 +3,0 @@ -> [3,5,3,3]; "\\ No newline at end of file" is not a content line', () => {
    const rec = only(TRIM)
    expect(file(rec, 'b.txt')).toEqual({ path: 'b.txt', oldPath: 'b.txt', status: 'M', binary: false, hunks: [3, 5, 3, 3], additions: 0, deletions: 2, whitespaceOnly: false })
    expect(file(rec, 'c.txt')).toEqual({ path: 'c.txt', oldPath: 'c.txt', status: 'M', binary: false, hunks: [1, 2, 1, 2], additions: 1, deletions: 1, whitespaceOnly: false })
  })

  it('single-line hunks without counts (@@ -2 +2 @@ and @@ -0,0 +1 @@)', () => {
    expect(file(only(REAL_CHANGE), 'fmt.js').hunks).toEqual([1, 2, 1, 2])
    expect(file(parse(INITIAL)[0], 'ü.txt').hunks).toEqual([0, 0, 0, 1])
  })

  it('treats content lines that look like ---/+++ headers as removed/added lines', () => {
    // "--- sig" is the removed line "-- sig", "++++ y" the added line "+++ y"
    expect(file(only(EDGE), 'dash.txt')).toEqual({ path: 'dash.txt', oldPath: 'dash.txt', status: 'M', binary: false, hunks: [0, 2, 0, 2], additions: 2, deletions: 2, whitespaceOnly: false })
  })
})

describe('DiffStreamParser: file statuses', () => {
  const shuffle = only(SHUFFLE)

  it('lists the files of a commit in git order', () => {
    expect(shuffle.files.map((f) => [f.status, f.oldPath, f.path])).toEqual([
      ['M', 'bin.dat', 'bin.dat'],
      ['D', 'del.txt', 'del.txt'],
      ['R', 'renamed.txt', 'dir/renamed.txt'],
      ['R', 'moved.txt', 'moved2.txt'],
      ['A', 'new.txt', 'new.txt'],
      ['M', 'old name.txt', 'old name.txt'],
      ['M', 'run.sh', 'run.sh'],
      ['M', 'ü.txt', 'ü.txt'],
    ])
  })

  it('new file', () => {
    expect(file(shuffle, 'new.txt')).toEqual({ path: 'new.txt', oldPath: 'new.txt', status: 'A', binary: false, hunks: [0, 0, 0, 2], additions: 2, deletions: 0, whitespaceOnly: false })
  })

  it('deleted file keeps its path', () => {
    expect(file(shuffle, 'del.txt')).toEqual({ path: 'del.txt', oldPath: 'del.txt', status: 'D', binary: false, hunks: [0, 2, 0, 0], additions: 0, deletions: 2, whitespaceOnly: false })
  })

  it('rename with edits', () => {
    expect(file(shuffle, 'dir/renamed.txt')).toEqual({ path: 'dir/renamed.txt', oldPath: 'renamed.txt', status: 'R', binary: false, hunks: [3, 4, 3, 4], additions: 1, deletions: 1, whitespaceOnly: false })
  })

  it('pure rename (similarity 100%, no ---/+++ lines)', () => {
    expect(file(shuffle, 'moved2.txt')).toEqual({ path: 'moved2.txt', oldPath: 'moved.txt', status: 'R', binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
  })

  it('binary modification, binary addition, binary deletion', () => {
    expect(file(shuffle, 'bin.dat')).toEqual({ path: 'bin.dat', oldPath: 'bin.dat', status: 'M', binary: true, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
    expect(file(parse(INITIAL)[0], 'bin.dat')).toMatchObject({ status: 'A', binary: true, hunks: [] })
    expect(file(only(EDGE), 'gone.bin')).toEqual({ path: 'gone.bin', oldPath: 'gone.bin', status: 'D', binary: true, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
  })

  it('mode-only change', () => {
    expect(file(shuffle, 'run.sh')).toEqual({ path: 'run.sh', oldPath: 'run.sh', status: 'M', binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
  })

  it('empty new file (no ---/+++ and no hunks)', () => {
    expect(file(only(EDGE), 'empty.txt')).toEqual({ path: 'empty.txt', oldPath: 'empty.txt', status: 'A', binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
  })

  it('root commit: every file added', () => {
    const root = parse(INITIAL)[0]
    expect(root.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt', 'bin.dat', 'c.txt', 'del.txt', 'fmt.js', 'moved.txt', 'old name.txt', 'renamed.txt', 'run.sh', 'ü.txt'])
    expect(root.files.every((f) => f.status === 'A')).toBe(true)
    expect(file(root, 'a.txt')).toMatchObject({ hunks: [0, 0, 0, 10], additions: 10, deletions: 0 })
    expect(file(root, 'c.txt')).toMatchObject({ hunks: [0, 0, 0, 2], additions: 2 })
  })
})

describe('DiffStreamParser: paths', () => {
  it('path with spaces: the TAB git appends after the name in ---/+++ is dropped', () => {
    expect(file(only(SHUFFLE), 'old name.txt')).toEqual({ path: 'old name.txt', oldPath: 'old name.txt', status: 'M', binary: false, hunks: [2, 2, 2, 3], additions: 1, deletions: 0, whitespaceOnly: false })
    expect(file(parse(INITIAL)[0], 'old name.txt')).toMatchObject({ status: 'A', hunks: [0, 0, 0, 2] })
  })

  it('C-quoted unicode path ("\\303\\274")', () => {
    expect(file(only(SHUFFLE), 'ü.txt')).toEqual({ path: 'ü.txt', oldPath: 'ü.txt', status: 'M', binary: false, hunks: [1, 1, 1, 2], additions: 1, deletions: 0, whitespaceOnly: false })
  })

  it('quoted paths with a space, embedded quotes, a tab; renames of unquoted/quoted names with spaces', () => {
    const rec = only(EDGE)
    expect(rec.files.map((f) => [f.status, f.oldPath, f.path])).toEqual([
      ['M', 'dash.txt', 'dash.txt'],
      ['A', 'empty.txt', 'empty.txt'],
      ['D', 'gone.bin', 'gone.bin'],
      ['R', 'sp ace.txt', 'new space.txt'],
      ['M', 'say "hi".txt', 'say "hi".txt'],
      ['R', 't\tb.txt', 'tb.txt'],
      ['M', 'ü x.txt', 'ü x.txt'],
    ])
    expect(file(rec, 'ü x.txt').hunks).toEqual([1, 1, 1, 2])
    expect(file(rec, 'say "hi".txt').hunks).toEqual([1, 1, 1, 2])
    const root = only(EDGE_ROOT)
    expect(root.files.map((f) => f.path)).toEqual(['dash.txt', 'gone.bin', 'say "hi".txt', 'sp ace.txt', 't\tb.txt', 'ü x.txt'])
    expect(root.files.every((f) => f.status === 'A' && f.oldPath === f.path)).toBe(true)
  })

  it('paths beyond Latin-1 (Cyrillic, CJK, emoji) survive unquoting', () => {
    const rec = only(NON_LATIN1)
    expect(rec.files.map((f) => [f.status, f.oldPath, f.path])).toEqual([
      ['R', 'файл.txt', '☕ файл.txt'],
      ['M', '日本.txt', '日本.txt'],
    ])
    expect(file(rec, '日本.txt').hunks).toEqual([1, 1, 1, 2])
  })

  it('unquotePath beyond Latin-1', () => {
    expect(unquotePath('"\\342\\230\\225 x"')).toBe('☕ x')
    expect(unquotePath('"\\321\\204"')).toBe('ф')
  })

  it('unquotePath', () => {
    expect(unquotePath('"a/\\303\\274.txt"')).toBe('a/ü.txt')
    expect(unquotePath('"say \\"hi\\".txt"')).toBe('say "hi".txt')
    expect(unquotePath('"t\\tb.txt"')).toBe('t\tb.txt')
    expect(unquotePath('"back\\\\slash"')).toBe('back\\slash')
    expect(unquotePath('"\\a\\b\\f\\n\\r\\v"')).toBe('\x07\x08\x0c\n\r\x0b')
    expect(unquotePath('plain/path.txt')).toBe('plain/path.txt')
    // unquoted raw UTF-8 (core.quotePath=false) arrives as latin1 and is re-decoded
    expect(unquotePath('caf\xc3\xa9.txt')).toBe('café.txt')
  })
})

describe('DiffStreamParser: whitespace-only detection', () => {
  it('a reindent is whitespace-only', () => {
    expect(file(only(REINDENT), 'fmt.js')).toEqual({ path: 'fmt.js', oldPath: 'fmt.js', status: 'M', binary: false, hunks: [1, 2, 1, 2], additions: 1, deletions: 1, whitespaceOnly: true })
  })

  it('a real change is not', () => {
    expect(file(only(REAL_CHANGE), 'fmt.js').whitespaceOnly).toBe(false)
  })

  it('additions, deletions, binaries and renames are never whitespace-only', () => {
    const shuffle = only(SHUFFLE)
    expect(shuffle.files.map((f) => f.whitespaceOnly)).toEqual([false, false, false, false, false, false, false, false])
  })

  it('moving text between lines is not whitespace-only, re-wrapping it is', () => {
    const hdr = '\x01abc\x02\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n'
    const swapped = only(hdr + '@@ -1 +1 @@\n-a\n+b\n@@ -3 +3 @@\n-b\n+a\n')
    expect(swapped.files[0]).toMatchObject({ hunks: [0, 1, 0, 1, 2, 3, 2, 3], whitespaceOnly: false })
    const rewrapped = only(hdr + '@@ -1 +1,2 @@\n-foo bar\n+foo\n+\tbar \r\n')
    expect(rewrapped.files[0]).toMatchObject({ hunks: [0, 1, 0, 2], additions: 2, deletions: 1, whitespaceOnly: true })
  })
})

describe('DiffStreamParser: chunk boundaries', () => {
  const whole = parse(ALL)
  const bytes = Buffer.from(ALL, 'latin1')

  it('sanity: the combined sample has all records', () => {
    expect(whole).toHaveLength(10)
    expect(whole.reduce((n, r) => n + r.files.length, 0)).toBe(1 + 1 + 8 + 2 + 1 + 11 + 7 + 6 + 1 + 1)
  })

  it('1-byte chunks give identical records', () => {
    const chunks: Buffer[] = []
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1))
    expect(parseChunks(chunks)).toEqual(whole)
  })

  it('random-size chunks give identical records', () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      const next = rng(seed)
      const chunks: Buffer[] = []
      for (let i = 0; i < bytes.length; ) {
        const n = 1 + Math.floor(next() * 97)
        chunks.push(bytes.subarray(i, i + n))
        i += n
      }
      expect(parseChunks(chunks), `seed ${seed}`).toEqual(whole)
    }
  })

  it('a split inside a multi-byte UTF-8 sequence and inside the \\x01/\\x02 markers is harmless', () => {
    const cafe = Buffer.from(CAFE + MERGE_FIRST_PARENT, 'latin1')
    const at = cafe.indexOf(Buffer.from([0xc3, 0xa9])) + 1
    const marker = cafe.lastIndexOf(0x01)
    const parts = [cafe.subarray(0, at), cafe.subarray(at, marker), cafe.subarray(marker, marker + 1), cafe.subarray(marker + 1)]
    expect(parseChunks(parts)).toEqual(parse(CAFE + MERGE_FIRST_PARENT))
  })

  it('input without a trailing newline is flushed by end()', () => {
    const text = MULTI_HUNK.replace(/\n$/, '')
    expect(parse(text)).toEqual(parse(MULTI_HUNK))
  })
})

// Captured with the current argv (which adds --raw --no-abbrev; the samples above predate it, and
// the parser reads both): three identical files renamed in one commit.
const RAW_RENAMES = [
  '\x0197a48c4f52950fd258b576a389bce7d68ea12039\x003b34e9f91e4e82f650bcf42d892e160a249ea0f8\x00a\x00a@x\x001577836800\x001577836800\x00rename all\n\x02',
  '',
  ':100644 100644 16858db7afb62f3e027d8f9379085d3567bcac62 16858db7afb62f3e027d8f9379085d3567bcac62 R100\ta/spec.js\ta/test.js',
  ':100644 100644 16858db7afb62f3e027d8f9379085d3567bcac62 16858db7afb62f3e027d8f9379085d3567bcac62 R100\tb/spec.js\tb/test.js',
  ':100644 100644 16858db7afb62f3e027d8f9379085d3567bcac62 16858db7afb62f3e027d8f9379085d3567bcac62 R100\tc/spec.js\tc/test.js',
  '',
  'diff --git a/a/spec.js b/a/test.js',
  'similarity index 100%',
  'rename from a/spec.js',
  'rename to a/test.js',
  'diff --git a/b/spec.js b/b/test.js',
  'similarity index 100%',
  'rename from b/spec.js',
  'rename to b/test.js',
  'diff --git a/c/spec.js b/c/test.js',
  'similarity index 100%',
  'rename from c/spec.js',
  'rename to c/test.js',
  '',
].join('\n')

describe('DiffStreamParser: --raw section', () => {
  it('attaches the blob ids of the raw lines to the files of the patch', () => {
    const rec = only(RAW_RENAMES)
    expect(rec.files.map((f, i) => [f.oldPath, f.path, f.status, rec.oids[i]?.[0].slice(0, 7), rec.oids[i]?.[1].slice(0, 7)])).toEqual([
      ['a/spec.js', 'a/test.js', 'R', '16858db', '16858db'],
      ['b/spec.js', 'b/test.js', 'R', '16858db', '16858db'],
      ['c/spec.js', 'c/test.js', 'R', '16858db', '16858db'],
    ])
  })
})

describe('DiffStreamParser: raw-only output with a filter', () => {
  const raw = (status: string, p: string) => `:100644 100644 ${'1'.repeat(40)} ${'2'.repeat(40)} ${status}\t${p}`
  const OUT = ['\x01aaa\x02', raw('M', 'keep.c'), raw('M', 'drop.c'), raw('A', '"sp\\303\\274ecial.c"'), '\x01bbb\x02', '\x01ccc\x02', raw('D', 'keep.c'), raw('M', 'dir/drop.c'), ''].join('\n')

  it('builds files of the lines the filter keeps only, and shows it every line with its record number', () => {
    const seen: Array<[number, string]> = []
    const records: DiffRecord[] = []
    const parser = new DiffStreamParser((r) => records.push(r), false, true, (n, p) => {
      seen.push([n, p])
      return p !== 'drop.c' && p !== 'dir/drop.c'
    })
    parser.push(Buffer.from(OUT, 'latin1'))
    parser.end()
    expect(seen).toEqual([[0, 'keep.c'], [0, 'drop.c'], [0, 'spüecial.c'], [2, 'keep.c'], [2, 'dir/drop.c']])
    expect(records.map((r) => [r.header, r.files.map((f) => `${f.status} ${f.path}`), r.oids.length, r.modes?.length])).toEqual([
      ['aaa', ['M keep.c', 'A spüecial.c'], 2, 2],
      ['bbb', [], 0, 0],
      ['ccc', ['D keep.c'], 1, 1],
    ])
  })
})

describe('DiffStreamParser: raw-only output in pieces', () => {
  const oid = (d: string) => d.repeat(40)
  const lines = [
    '\x01m1\x02',
    `:100644 100644 ${oid('1')} ${oid('2')} M\tsrc/a.c`,
    `:100644 100755 ${oid('3')} ${oid('3')} M\tbin/run`,
    `:100644 120000 ${oid('4')} ${oid('5')} T\tlink`,
    `:000000 100644 ${oid('0')} ${oid('6')} A\t"sp\\303\\274ecial.c"`,
    '\x01m2\x02',
    `:100644 100644 ${oid('7')} ${oid('8')} R087\told/name.c\tnew/name.c`,
    `:100644 000000 ${oid('9')} ${oid('0')} D\tgone.c`,
  ]
  // a Latin-1 byte in an unquoted path (git quotes it by default; core.quotePath=false does not)
  const bytes = Buffer.concat([Buffer.from(lines.join('\n') + '\n', 'latin1'), Buffer.from(`:100644 100644 ${oid('a')} ${oid('b')} M\tcaf`, 'latin1'), Buffer.from([0xe9]), Buffer.from('.c\n')])
  const parse = (pieces: Buffer[]) => {
    const records: DiffRecord[] = []
    const seen: string[] = []
    const parser = new DiffStreamParser((r) => records.push(r), false, true, (n, p) => {
      seen.push(`${n}:${p}`)
      return p !== 'src/a.c'
    })
    for (const piece of pieces) parser.push(piece)
    parser.end()
    return { seen, records: records.map((r) => ({ header: r.header, files: r.files.map((f) => `${f.status} ${f.oldPath} -> ${f.path}`), oids: r.oids, modes: r.modes })) }
  }

  it('reads the same records whatever the chunks, a reused chunk buffer included', () => {
    const whole = parse([bytes])
    expect(whole.seen).toEqual(['0:src/a.c', '0:bin/run', '0:link', '0:spüecial.c', '1:new/name.c', '1:gone.c', '1:café.c'])
    expect(whole.records).toEqual([
      {
        header: 'm1',
        files: ['M bin/run -> bin/run', 'D link -> link', 'A link -> link', 'A spüecial.c -> spüecial.c'],
        oids: [[oid('3'), oid('3')], [oid('4'), oid('5')], [oid('4'), oid('5')], [oid('0'), oid('6')]],
        modes: [['100644', '100755'], ['100644', '120000'], ['100644', '120000'], ['000000', '100644']],
      },
      {
        header: 'm2',
        files: ['R old/name.c -> new/name.c', 'D gone.c -> gone.c', 'M café.c -> café.c'],
        oids: [[oid('7'), oid('8')], [oid('9'), oid('0')], [oid('a'), oid('b')]],
        modes: [['100644', '100644'], ['100644', '000000'], ['100644', '100644']],
      },
    ])
    for (const size of [1, 2, 7, 33, 100]) {
      // one buffer, overwritten between pushes as readSpool does
      const shared = Buffer.alloc(size)
      const pieces: Buffer[] = []
      for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size))
      const records: DiffRecord[] = []
      const p = new DiffStreamParser((r) => records.push(r), false, true, (_n, path) => path !== 'src/a.c')
      for (const piece of pieces) {
        piece.copy(shared)
        p.push(shared.subarray(0, piece.length))
      }
      p.end()
      expect(records.map((r) => ({ header: r.header, files: r.files.map((f) => `${f.status} ${f.oldPath} -> ${f.path}`), oids: r.oids, modes: r.modes })), `chunks of ${size}`).toEqual(whole.records)
      expect(parse(pieces).seen).toEqual(whole.seen)
    }
  })
})

describe('DiffStreamParser: kept hunk text', () => {
  const bytes = Buffer.from(ALL, 'latin1')
  const parseKept = (chunks: Buffer[], shared?: Buffer) => {
    const out: DiffRecord[] = []
    const p = new DiffStreamParser((r) => out.push(r), true)
    for (const c of chunks) {
      // readSpool reads every chunk into one buffer: what the parser keeps must be its own copy
      if (shared) c.copy(shared)
      p.push(shared ? shared.subarray(0, c.length) : c)
    }
    p.end()
    return out
  }
  /** The reference: each file's `+`/`-` lines after its first `@@`, read from the text line by line. */
  const expected = () => {
    const texts: string[] = []
    let cur: string[] | null = null
    let inHunk = false
    const close = () => {
      if (cur && cur.length > 0) texts.push(cur.join('\n'))
      cur = null
    }
    for (const line of ALL.split('\n')) {
      if (line.startsWith('diff --git ') || line.startsWith('\x01')) {
        close()
        cur = line.startsWith('diff') ? [] : null
        inHunk = false
      } else if (line.startsWith('@@')) inHunk = true
      else if (cur && inHunk && (line.startsWith('+') || line.startsWith('-'))) cur.push(line)
    }
    close()
    return texts.map((t) => decodeBytes(Buffer.from(t, 'latin1')))
  }

  it('keeps every file\'s own text when the texts fill several slabs, one file larger than a slab', () => {
    // 400 files of 2 hunks, ~6 KB each, then one of ~1.5 MB, then 10 more: the texts cross the
    // arena's 1 MB slabs mid-file, and the large one needs a slab of its own
    const sizes = [...Array.from({ length: 400 }, () => 40), 10_000, ...Array.from({ length: 10 }, () => 40)]
    const files = sizes.map((n, i) => {
      const minus = Array.from({ length: n }, (_, l) => `-old line ${l} of file ${i} ${'x'.repeat(60)}`)
      const plus = Array.from({ length: n }, (_, l) => `+new line ${l} of file ${i} ${'y'.repeat(60)}`)
      const text = [...minus.slice(0, n / 2), ...plus.slice(0, n / 2), ...minus.slice(n / 2), ...plus.slice(n / 2)].join('\n')
      const body = [`diff --git a/f${i}.txt b/f${i}.txt`, `index ${'1'.repeat(40)}..${'2'.repeat(40)} 100644`, `--- a/f${i}.txt`, `+++ b/f${i}.txt`, `@@ -1,${n / 2} +1,${n / 2} @@`, ...minus.slice(0, n / 2), ...plus.slice(0, n / 2), `@@ -${n + 1},${n / 2} +${n + 1},${n / 2} @@`, ...minus.slice(n / 2), ...plus.slice(n / 2)]
      return { body: body.join('\n'), text }
    })
    const log = `\x01${'a'.repeat(40)} ${'b'.repeat(40)}\x1fA\x1fa@x\x1f1700000000 +0000\x1fA\x1fa@x\x1f1700000000 +0000\x1fbig\x02\n\n${files.map((f) => f.body).join('\n')}\n`
    const big = Buffer.from(log, 'latin1')
    expect(big.length).toBeGreaterThan(3 << 20)
    for (const size of [65_536, 1_000_003]) {
      const chunks: Buffer[] = []
      for (let at = 0; at < big.length; at += size) chunks.push(big.subarray(at, at + size))
      const [record] = parseKept(chunks, Buffer.alloc(size))
      expect(record.files.map((f) => f.text && Buffer.from(f.text).toString('latin1')), `chunks of ${size}`).toEqual(files.map((f) => f.text))
    }
  })

  it('is every file\'s removed and added lines, whatever the chunks', () => {
    const whole = parseKept([bytes])
    // the bytes as git wrote them: decoded, the text
    const texts = whole.flatMap((r) => r.files.filter((f) => f.text !== undefined).map((f) => decodeBytes(f.text!)))
    expect(texts).toEqual(expected())
    expect(decodeBytes(whole[0].files[0].text!)).toBe('-    return 1;\n+    return 2;')
    for (const size of [1, 2, 5, 64, 1000]) {
      const chunks: Buffer[] = []
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
      expect(parseKept(chunks, Buffer.alloc(size)), `chunks of ${size}`).toEqual(whole)
    }
  })
})
