; Entry points of execution flows (src/codegraph/flows.ts), for C and C++: main.
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)
  (#eq? @name "main")) @entry.main
