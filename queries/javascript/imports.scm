; Imports and exports of JavaScript, TypeScript and TSX modules (one query: the node types are shared) (src/parse/extractor.ts reads them;
; src/codegraph/resolve.ts resolves them).
;
; Captures: @import.source the module specifier; @import.name an imported name, bound locally to
; @import.alias when there is one; @import.default the local name of the default export;
; @import.namespace the local name of the whole module; @import.reexport marks `export … from`
; (its names become exports of this file; with no name, `export *`). @export.local is a local name
; this file exports as @export.as (`export { a as b }`), or as its default (`export default a`,
; @export.default).

(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.source))

(import_statement
  (import_clause (identifier) @import.default)
  source: (string (string_fragment) @import.source))

(import_statement
  (import_clause (namespace_import (identifier) @import.namespace))
  source: (string (string_fragment) @import.source))

(import_statement source: (string (string_fragment) @import.source))

(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.source)) @import.reexport

(export_statement
  !declaration
  !value
  source: (string (string_fragment) @import.source)) @import.reexport

(export_statement
  (namespace_export (_) @import.namespace)
  source: (string (string_fragment) @import.source)) @import.reexport

(export_statement
  (export_clause (export_specifier name: (_) @export.local alias: (_)? @export.as))
  !source)

(export_statement "default" value: (identifier) @export.default)

(export_statement "default" declaration: [
  (function_declaration name: (identifier) @export.default)
  (generator_function_declaration name: (identifier) @export.default)
  (class_declaration name: (_) @export.default)
  
])

; `const x = require('./x')`, `import('./x')`
(variable_declarator
  name: (identifier) @import.namespace
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.source)))
  (#eq? @_require "require"))

(call_expression
  function: [(identifier) (import)] @_fn
  arguments: (arguments . (string (string_fragment) @import.source))
  (#match? @_fn "^(require|import)$"))
