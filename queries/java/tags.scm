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
