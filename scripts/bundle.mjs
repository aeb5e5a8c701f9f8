// Bundles the entry points that must start fast (the MCP server, the Claude hook, a no-op analyze, the read commands of src/fast/cli.ts) into one file each: Node 20's
// ESM loader spends ~150 ms resolving the MCP SDK's and zod's hundreds of modules; one bundled
// file loads in ~30 ms. The native Kuzu addon stays external.
import { build } from 'esbuild'

await build({
  entryPoints: { mcp: 'dist/mcp/main.js', hook: 'dist/hook/claude.js', analyze: 'dist/fast/analyze.js', cli: 'dist/fast/cli.js' },
  // the database is opened on first use: splitting keeps the native Kuzu addon (~20 ms to load)
  // in a chunk imported then, not at start-up
  splitting: true,
  chunkNames: '[name]-[hash]',
  outdir: 'dist/bundle',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // transformers.js loads onnxruntime-node's and sharp's native addons by relative path: never bundled
  external: ['kuzu', '@huggingface/transformers'],
  // jsonc-parser's "main" is a UMD build whose dynamic requires esbuild cannot follow; its ESM build bundles
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire as __gitwhyRequire } from 'node:module'; const require = __gitwhyRequire(import.meta.url);" },
  logLevel: 'warning',
})
