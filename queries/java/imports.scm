; Imports of Java classes (src/codegraph/resolve.ts resolves them by package folders).
; @import.source the imported class (or, for `import static`, class.member; with `.*`, a package).

(import_declaration (scoped_identifier) @import.source)
