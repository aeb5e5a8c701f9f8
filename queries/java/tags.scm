; Symbols for Java.
;
; Captures: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it; annotations and modifiers are part of both, as in the grammar).
; Records are classes, annotation types are interfaces, constructors are methods.

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(method_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.method

; References (tags convention): @reference.call with @name, the method; @receiver, the object or
; class it is called on; @reference.class, an instantiation or, in a class's head, the superclass;
; @reference.implementation, an implemented (or, for an interface, extended) interface.

(method_invocation
  object: (_)? @receiver
  name: (identifier) @name) @reference.call

(object_creation_expression type: (type_identifier) @name) @reference.class

(superclass (type_identifier) @name) @reference.class

(super_interfaces (type_list (type_identifier) @name)) @reference.implementation

(extends_interfaces (type_list (type_identifier) @name)) @reference.class

; Bindings (src/parse/extractor.ts): a name whose type the code says, for the receivers of calls.
; @binding.name a parameter or local variable, @binding.field a field, @binding.type its declared
; type (a generic one by its name) or, for `var`, the class it constructs.

(formal_parameter
  type: [(type_identifier) @binding.type (generic_type . (type_identifier) @binding.type)]
  name: (identifier) @binding.name)

((local_variable_declaration
  type: [(type_identifier) @binding.type (generic_type . (type_identifier) @binding.type)]
  declarator: (variable_declarator name: (identifier) @binding.name))
  (#not-eq? @binding.type "var"))

(local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: (object_creation_expression type: [(type_identifier) @binding.type (generic_type . (type_identifier) @binding.type)]))
  (#eq? @_var "var"))

(field_declaration
  type: [(type_identifier) @binding.type (generic_type . (type_identifier) @binding.type)]
  declarator: (variable_declarator name: (identifier) @binding.field))
