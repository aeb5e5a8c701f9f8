; Imports of Rust modules (src/codegraph/modules.ts resolves the paths: `crate::`, `self::`,
; `super::`, and a module of the current one; an external crate resolves to nothing).
; @import.source the module path; @import.name an item (or submodule) used from it, bound to
; @import.alias when renamed; @import.namespace the local name of a whole module (`mod foo;`);
; @import.reexport marks a glob (`use a::b::*;`: every item of the module).

(use_declaration
  argument: (scoped_identifier path: (_) @import.source name: (identifier) @import.name))

(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.source name: (identifier) @import.name)
    alias: (identifier) @import.alias))

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list (identifier) @import.name)))

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias))))

(use_declaration argument: (use_wildcard (_) @import.source)) @import.reexport

; `mod foo;` (no body): the file foo.rs or foo/mod.rs beside this module.
(mod_item !body name: (identifier) @import.source @import.namespace)
