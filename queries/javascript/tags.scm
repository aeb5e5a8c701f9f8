; Symbols for JavaScript (and JSX).
;
; Captures: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it). `export` wrappers are not part of a definition; the extractor reads
; `exported` from the parent.

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

; `const f = () => {}`, `var f = function () {}`: the whole declaration is the function.
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
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.method

; Class fields holding a function: `handle = () => {}`.
(field_definition
  property: (_) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]) @definition.method
