; Symbols and references for Kotlin.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it; annotations and modifiers are part of both), @receiver the receiver type
; of an extension function, which qualifies it: `fun Invoice.describe()` → `Invoice.describe`.
; An `object` is a class; a companion object is not a symbol: its functions belong to the class
; (`Invoice.create`, as Kotlin calls them). A function directly inside a class, interface or
; object is made a method by the extractor.
;
; References: @reference.call with @name the callee: `f()`, `Klass(...)` (a constructor call),
; `obj.m()`, `obj?.m()` (@receiver the object); @reference.class with @name the superclass (the supertype called as a
; constructor: `: Account(1L)`); @reference.implementation with @name an implemented interface
; (a supertype without a constructor call: `: Payable`).

(class_declaration
  "enum"
  (type_identifier) @name
  (enum_class_body) @body) @definition.enum

(class_declaration
  "interface"
  (type_identifier) @name
  (class_body)? @body) @definition.interface

(class_declaration
  "class"
  (type_identifier) @name
  (class_body)? @body) @definition.class

(object_declaration
  (type_identifier) @name
  (class_body)? @body) @definition.class

; An extension function first: of two matches of one name, the first is kept.
(function_declaration
  (user_type (type_identifier) @receiver)
  .
  (simple_identifier) @name
  (function_body)? @body) @definition.method

(function_declaration
  (simple_identifier) @name
  (function_body)? @body) @definition.function

(type_alias
  (type_identifier) @name) @definition.type

(call_expression
  .
  (simple_identifier) @name) @reference.call

(call_expression
  .
  (navigation_expression
    .
    (_) @receiver
    (navigation_suffix (simple_identifier) @name))) @reference.call

(delegation_specifier
  (constructor_invocation
    (user_type (type_identifier) @name))) @reference.class

(delegation_specifier
  .
  (user_type (type_identifier) @name)) @reference.implementation

; Bindings (src/parse/extractor.ts): a name whose type the code says, for the receivers of calls.
; @binding.name a parameter or local, @binding.field a property of the class (a `val`/`var`
; constructor parameter or a property in its body), @binding.type its declared type or the class
; whose constructor it is assigned (`val s = Svc()`: kept only when that names a class).

(class_parameter
  (binding_pattern_kind)
  (simple_identifier) @binding.field
  [(user_type (type_identifier) @binding.type .) (nullable_type (user_type (type_identifier) @binding.type .))])

(parameter
  (simple_identifier) @binding.name
  [(user_type (type_identifier) @binding.type .) (nullable_type (user_type (type_identifier) @binding.type .))])

(class_body (property_declaration
  (variable_declaration
    (simple_identifier) @binding.field
    [(user_type (type_identifier) @binding.type .) (nullable_type (user_type (type_identifier) @binding.type .))])))

(class_body (property_declaration
  (variable_declaration (simple_identifier) @binding.field .)
  (call_expression . (simple_identifier) @binding.type)))

(statements (property_declaration
  (variable_declaration
    (simple_identifier) @binding.name
    [(user_type (type_identifier) @binding.type .) (nullable_type (user_type (type_identifier) @binding.type .))])))

(statements (property_declaration
  (variable_declaration (simple_identifier) @binding.name .)
  (call_expression . (simple_identifier) @binding.type)))
