; Imports of Go packages (src/codegraph/resolve.ts resolves them by the module path in go.mod).
; @import.source the import path; @import.namespace the package's local name when given (else the
; last element of the path).

(import_spec
  name: (package_identifier)? @import.namespace
  path: (interpreted_string_literal) @import.source)
