// Bundles the entry points that must start fast (the MCP server, the Claude hook, a no-op analyze, the read commands of src/fast/cli.ts) into one file each: Node 20's
// ESM loader spends ~150 ms resolving the MCP SDK's and zod's hundreds of modules; one bundled
// file loads in ~30 ms. The native Kuzu addon stays external.
import { build } from 'esbuild'

const common = {
  outdir: 'dist/bundle',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // jsonc-parser's "main" is a UMD build whose dynamic requires esbuild cannot follow; its ESM build bundles
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire as __gitwhyRequire } from 'node:module'; const require = __gitwhyRequire(import.meta.url);" },
  logLevel: 'warning',
}

await build({
  ...common,
  entryPoints: { mcp: 'dist/mcp/main.js', hook: 'dist/hook/claude.js', analyze: 'dist/fast/analyze.js', cli: 'dist/fast/cli.js' },
  // the database is opened on first use: splitting keeps the native Kuzu addon (~20 ms to load)
  // in a chunk imported then, not at start-up
  splitting: true,
  chunkNames: '[name]-[hash]',
  // transformers.js loads onnxruntime-node's and sharp's native addons by relative path: never bundled
  external: ['kuzu', '@huggingface/transformers'],
})

// `gitwhy explore` (src/tui/): Ink imports all of es-toolkit's compat layer for one function and
// React's development builds load unless NODE_ENV says production; bundled (tree-shaken, React's
// production build) the explorer's modules load in ~0.1 s instead of ~0.5 s. Only the explore
// command imports this file.
await build({
  ...common,
  entryPoints: { explore: 'dist/tui/run.js' },
  splitting: true,
  chunkNames: 'explore-[name]-[hash]',
  // Ink loads react-devtools-core only when DEV=true; it is not a dependency
  external: ['kuzu', '@huggingface/transformers', 'react-devtools-core'],
  define: { 'process.env.NODE_ENV': '"production"' },
})
