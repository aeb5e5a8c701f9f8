; Entry points of execution flows (src/codegraph/flows.ts), for Go. Captures documented in
; queries/javascript/entries.scm.

; package main's func main()
(function_declaration name: (identifier) @name (#eq? @name "main")) @entry.main

; net/http, gorilla/mux, chi, gin, echo: http.HandleFunc("/x", handler), r.GET("/x", h.List)
(call_expression
  function: (selector_expression field: (field_identifier) @entry.method)
  arguments: (argument_list
    .
    (interpreted_string_literal) @entry.path
    (identifier) @name
    .)
  (#match? @entry.method "^(HandleFunc|Handle|Get|Post|Put|Patch|Delete|Head|Options|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|Any)$")
  (#match? @entry.path "^\"/")) @entry.route

(call_expression
  function: (selector_expression field: (field_identifier) @entry.method)
  arguments: (argument_list
    .
    (interpreted_string_literal) @entry.path
    (selector_expression operand: (_) @receiver field: (field_identifier) @name)
    .)
  (#match? @entry.method "^(HandleFunc|Handle|Get|Post|Put|Patch|Delete|Head|Options|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|Any)$")
  (#match? @entry.path "^\"/")) @entry.route

; cobra: &cobra.Command{Use: "serve", RunE: runServe}; Run: func(...) {...} inline
(composite_literal
  type: (qualified_type name: (type_identifier) @_type)
  body: (literal_value
    (keyed_element
      (literal_element (identifier) @_use)
      (literal_element (interpreted_string_literal) @entry.path))
    (keyed_element
      (literal_element (identifier) @_run)
      (literal_element (identifier) @name)))
  (#eq? @_type "Command")
  (#eq? @_use "Use")
  (#match? @_run "^(Run|RunE)$")) @entry.command

(composite_literal
  type: (qualified_type name: (type_identifier) @_type)
  body: (literal_value
    (keyed_element
      (literal_element (identifier) @_use)
      (literal_element (interpreted_string_literal) @entry.path))
    (keyed_element
      (literal_element (identifier) @_run)
      (literal_element (func_literal))))
  (#eq? @_type "Command")
  (#eq? @_use "Use")
  (#match? @_run "^(Run|RunE)$")) @entry.command

(composite_literal
  type: (qualified_type name: (type_identifier) @_type)
  body: (literal_value
    (keyed_element
      (literal_element (identifier) @_run)
      (literal_element (identifier) @name)))
  (#eq? @_type "Command")
  (#match? @_run "^(Run|RunE)$")) @entry.command
