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

; References (tags convention): @reference.call with @name, the callee; @receiver, the object of a
; member call; @reference.class, an instantiation or, inside a class's head, the base class.

(call_expression function: (identifier) @name) @reference.call

; `this.#m()`: a private method is called by its `#` name, as it is defined
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

(new_expression constructor: (identifier) @name) @reference.class

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.class

(class_heritage (identifier) @name) @reference.class

(class_heritage
  (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.class

; Bindings (src/parse/extractor.ts): a variable or field (`this.name`) assigned a `new`: @binding.name
; or @binding.field, and @binding.type the class it constructs.

(variable_declarator
  name: (identifier) @binding.name
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type))

(field_definition
  property: [(property_identifier) (private_property_identifier)] @binding.field
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type))

(assignment_expression
  left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @binding.field)
  right: (new_expression constructor: [(identifier) (member_expression)] @binding.type))
