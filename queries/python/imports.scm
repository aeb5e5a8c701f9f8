; Imports of Python modules (src/parse/extractor.ts reads them; src/codegraph/resolve.ts resolves
; them). @import.source the module; @import.name a name imported from it, bound to @import.alias
; when there is one; @import.namespace the name the whole module is bound to.

(import_statement name: (dotted_name) @import.source @import.namespace)

(import_statement
  name: (aliased_import name: (dotted_name) @import.source alias: (identifier) @import.namespace))

(import_from_statement
  module_name: (_) @import.source
  name: (dotted_name) @import.name)

(import_from_statement
  module_name: (_) @import.source
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))

(import_from_statement
  module_name: (_) @import.source
  (wildcard_import)) @import.reexport
