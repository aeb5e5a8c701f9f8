; Symbols and references for Swift.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it; attributes and modifiers are part of both), @scope (with @name) an
; extension: not a symbol, but its functions are methods of the type it extends
; (`extension Invoice { func describe() }` → `Invoice.describe`; `extension A.B` → `A.B.…`).
; Protocols are interfaces, actors are classes, initialisers and deinitialisers are methods named
; `init` and `deinit`. A function directly inside a type is made a method by the extractor.
;
; References: @reference.call with @name the callee: `f()`, `Type(...)` (an initialiser call),
; `obj.m()`, `obj?.m()`, `super.init()`. Heritage: Swift lists a class's superclass first, so the
; first supertype of a class is @reference.class and the others are @reference.implementation
; (protocols); every supertype of a struct, enum or extension is @reference.implementation; a
; protocol's supertypes are protocols it refines (@reference.class). A class that only conforms
; to protocols has its first protocol reported as @reference.class: the syntax cannot tell.

(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name
  body: (_) @body) @definition.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name
  body: (_) @body) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name
  body: (_) @body) @definition.enum

(class_declaration
  declaration_kind: "extension"
  name: (user_type) @name) @scope

(protocol_declaration
  name: (type_identifier) @name
  body: (protocol_body) @body) @definition.interface

(function_declaration
  name: (simple_identifier) @name
  body: (function_body) @body) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.function

(init_declaration
  "init" @name
  body: (function_body)? @body) @definition.method

(deinit_declaration
  "deinit" @name
  body: (function_body) @body) @definition.method

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(call_expression
  .
  (simple_identifier) @name) @reference.call

(call_expression
  .
  (navigation_expression
    suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

(class_declaration
  declaration_kind: ["class" "actor"]
  [(type_identifier) (type_parameters)]
  .
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name)) @reference.class)

; A supertype after a comma is not the first one.
(class_declaration
  declaration_kind: ["class" "actor"]
  ","
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name)) @reference.implementation)

(class_declaration
  declaration_kind: ["struct" "enum" "extension"]
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name)) @reference.implementation)

(protocol_declaration
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name)) @reference.class)
