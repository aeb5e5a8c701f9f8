; Symbols for Rust.
;
; Captures: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @scope (with @name) an `impl` block: not a symbol, but the functions
; inside it are qualified by the implementing type (`impl Display for Point` → `Point.fmt`) and
; become methods.
; A function directly inside a trait or impl is made a method by the extractor.

(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function

; A trait's required method, `fn area(&self) -> f64;`.
(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.trait

(mod_item
  name: (identifier) @name
  body: (declaration_list) @body) @definition.module

(type_item
  name: (type_identifier) @name) @definition.type

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]
  body: (declaration_list) @body) @scope

; References (tags convention): @reference.call with @name, the callee; @receiver, the value or
; path it is called on; @reference.implementation, the trait an `impl Trait for Type` implements.

(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

(impl_item trait: (type_identifier) @name) @reference.implementation
