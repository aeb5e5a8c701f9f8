import v8 from 'node:v8'

/**
 * V8's compilers tuned for a process that does a little work and exits, such as a one-commit
 * update: V8 optimises a JavaScript function once it has run ~66 KB of bytecode, and compiles
 * a hot WebAssembly function (tree-sitter's lexers are huge ones) again with TurboFan, both on
 * background threads. In an update that compiling was ~0.3 s of CPU on a 2-core machine whose
 * cores the update's own two threads already keep busy: a one-commit update of vuejs/core went
 * from 1,165 to 895 ms of wall time and 1,970 to 1,360 ms of CPU (`bench/update-ab.mjs`, both
 * flags). A long run keeps the defaults: a full build's parse of prettier's 9,000 files is ~8 %
 * slower in Liftoff's code.
 * Set before the work starts (the grammars are compiled when the files phase loads them).
 */
export function preferQuickTiers(): void {
  // a function must run ~1 MB of bytecode to be optimised: a short phase stays in the baseline tiers
  v8.setFlagsFromString('--interrupt-budget=1048576')
  // WebAssembly stays in Liftoff, the baseline compiler
  v8.setFlagsFromString('--liftoff-only')
  quick = true
}

let quick = false

/**
 * V8's default budget again (after preferQuickTiers), for a phase of hot loops over the whole
 * history that runs while a core is free: an update's analytics. A function first called after
 * this is optimised as usual (one already running keeps the budget it had until it next runs out).
 */
export function optimiseHotLoops(): void {
  if (quick) v8.setFlagsFromString('--interrupt-budget=67584')
}
