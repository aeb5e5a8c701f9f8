; Symbols for TypeScript and TSX (both grammars share these node types).
;
; Captures: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @head where the signature starts when not at the definition.
; `export` wrappers are not part of a definition; the extractor reads `exported` from the parent.

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

; `const f = () => {}`, `let f = function () {}`: the whole declaration is the function.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ])) @definition.function

(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.method

(abstract_method_signature
  name: (_) @name) @definition.method

; Class fields holding a function: `handle = () => {}`.
(public_field_definition
  name: (_) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]) @definition.method

(interface_declaration
  name: (type_identifier) @name
  body: (_) @body) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

; `namespace A.B {}`: the dotted name is kept whole.
(internal_module
  name: (_) @name
  body: (statement_block) @body) @definition.module

; `declare module 'pkg' {}`: the name without quotes; the range and signature include `declare`.
(ambient_declaration
  (module
    name: [
      (identifier) @name
      (nested_identifier) @name
      (string (string_fragment) @name)
    ]
    body: (statement_block) @body)) @definition.module

(module
  name: [
    (identifier) @name
    (nested_identifier) @name
    (string (string_fragment) @name)
  ]
  body: (statement_block) @body) @definition.module
