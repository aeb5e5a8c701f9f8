; Entry points of execution flows (src/codegraph/flows.ts), for Java: public static void main.
(method_declaration
  (modifiers) @_mods
  name: (identifier) @name
  (#eq? @name "main")
  (#match? @_mods "static")) @entry.main
