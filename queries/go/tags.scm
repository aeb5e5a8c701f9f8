; Symbols for Go.
;
; Captures: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @receiver the receiver's type name, which qualifies a method:
; `func (s *Server) Start()` → `Server.Start`. @type is only used by predicates.
; A `type X ...` declaration with a single spec is the definition (its range and signature
; include `type`); inside a grouped `type ( ... )` each spec is its own definition.

(function_declaration
  name: (identifier) @name
  body: (block) @body) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name
  body: (block) @body) @definition.method

((type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
  (#not-match? @definition.struct "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
  (#not-match? @definition.interface "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (_) @type)) @definition.type
  (#not-match? @definition.type "^type\\s*\\(")
  (#not-match? @type "^(struct|interface)\\b"))

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: (_) @type
  (#not-match? @type "^(struct|interface)\\b")) @definition.type

; `type A = B`
((type_declaration (type_alias name: (type_identifier) @name)) @definition.type
  (#not-match? @definition.type "^type\\s*\\("))
(type_alias name: (type_identifier) @name) @definition.type

; References (tags convention): @reference.call with @name, the callee; @receiver, the operand of
; a selector call (a package name or a value).

(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; Bindings (src/parse/extractor.ts): a name whose type the code says, for the receivers of calls.
; @binding.name a receiver, parameter or variable (`func (c *Command)`, `var c Command`,
; `c := &Command{}`), @binding.field a struct field, @binding.type its type (through a pointer;
; `pkg.T` dotted). A value returned by a function (`c := NewCommand()`) is not typed here.

(parameter_declaration
  name: (identifier) @binding.name
  type: [
    (type_identifier) @binding.type
    (qualified_type) @binding.type
    (generic_type type: (_) @binding.type)
    (pointer_type [(type_identifier) (qualified_type)] @binding.type)
    (pointer_type (generic_type type: (_) @binding.type))
  ])

(var_spec
  name: (identifier) @binding.name
  type: [
    (type_identifier) @binding.type
    (qualified_type) @binding.type
    (generic_type type: (_) @binding.type)
    (pointer_type [(type_identifier) (qualified_type)] @binding.type)
  ])

(short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) (qualified_type)] @binding.type)
    (unary_expression operator: "&" operand: (composite_literal type: [(type_identifier) (qualified_type)] @binding.type))
  ]))

(field_declaration
  name: (field_identifier) @binding.field
  type: [
    (type_identifier) @binding.type
    (qualified_type) @binding.type
    (generic_type type: (_) @binding.type)
    (pointer_type [(type_identifier) (qualified_type)] @binding.type)
  ])
