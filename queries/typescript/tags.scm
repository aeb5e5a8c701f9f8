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

; References (tags convention): @reference.call with @name, the callee; @receiver, the object of a
; member call; @reference.class, an instantiation (or the base class in a heritage clause);
; @reference.implementation, an implemented interface. Where a reference sits decides what it
; is: inside a class's head it is heritage, anywhere else a call (src/parse/extractor.ts).

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

(class_heritage (extends_clause value: (identifier) @name) @reference.class)

(class_heritage
  (extends_clause
    value: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.class)

(class_heritage (implements_clause (type_identifier) @name) @reference.implementation)

(class_heritage (implements_clause (generic_type name: (type_identifier) @name)) @reference.implementation)

(class_heritage
  (implements_clause
    [
      (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)
      (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
    ]) @reference.implementation)

(interface_declaration
  (extends_type_clause (type_identifier) @name) @reference.class)

(interface_declaration
  (extends_type_clause (generic_type name: (type_identifier) @name)) @reference.class)

; Bindings (src/parse/extractor.ts): a name whose type the declaration says, for the receivers of
; calls. @binding.name a parameter or variable, @binding.field a field of the enclosing class
; (`this.name`), @binding.type its type (the name of a generic one, a dotted `ns.T` whole) or the
; class a `new` constructs.

; Parameters of a function with a body (not of a function type or a signature).
(_
  parameters: (formal_parameters
    [
      (required_parameter pattern: (identifier) @binding.name type: (type_annotation [
        (type_identifier) @binding.type
        (nested_type_identifier) @binding.type
        (generic_type name: (_) @binding.type)
      ]))
      (optional_parameter pattern: (identifier) @binding.name type: (type_annotation [
        (type_identifier) @binding.type
        (nested_type_identifier) @binding.type
        (generic_type name: (_) @binding.type)
      ]))
    ])
  body: (_))

; `constructor(private svc: Svc)` declares a field too.
(required_parameter
  (accessibility_modifier)
  pattern: (identifier) @binding.field
  type: (type_annotation [
    (type_identifier) @binding.type
    (nested_type_identifier) @binding.type
    (generic_type name: (_) @binding.type)
  ]))

(variable_declarator
  name: (identifier) @binding.name
  type: (type_annotation [
    (type_identifier) @binding.type
    (nested_type_identifier) @binding.type
    (generic_type name: (_) @binding.type)
  ]))

(variable_declarator
  name: (identifier) @binding.name
  !type
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type))

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @binding.field
  type: (type_annotation [
    (type_identifier) @binding.type
    (nested_type_identifier) @binding.type
    (generic_type name: (_) @binding.type)
  ]))

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @binding.field
  !type
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type))

(assignment_expression
  left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @binding.field)
  right: (new_expression constructor: [(identifier) (member_expression)] @binding.type))

; A getter's declared return type types the property it reads: `get req(): HonoRequest` makes
; `c.req.header()` a call of HonoRequest's `header`.
(method_definition
  "get"
  name: (property_identifier) @binding.field
  return_type: (type_annotation [
    (type_identifier) @binding.type
    (nested_type_identifier) @binding.type
    (generic_type name: (_) @binding.type)
  ]))
