; Symbols and references for C#.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it; attributes and modifiers are part of both, as in the grammar),
; @namespace (with @name) a namespace, block or file-scoped: not a symbol, but it qualifies what
; is inside (`namespace Acme.Billing { class Invoice }` → `Acme.Billing.Invoice`). Records are
; classes, delegates are types, constructors, destructors and operators are methods (named after
; the class and `operator`); properties are not symbols.
;
; References: @reference.call with @name the callee: `F()`, `obj.M()`, `obj?.M()`, `T.M<U>()`,
; and a constructor `new X(...)` as a call of `X`. In a class's base list, C# does not say which
; name is the base class: a name of the `IName` form is taken as an implemented interface
; (@reference.implementation), any other as the base class (@reference.class). A struct or record
; struct only implements; an interface's bases are interfaces it extends (@reference.class).

(namespace_declaration
  name: (_) @name
  body: (declaration_list)) @namespace

(file_scoped_namespace_declaration
  name: (_) @name) @namespace

(class_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.struct

(interface_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_member_declaration_list) @body) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.method

(destructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.method

(operator_declaration
  "operator" @name
  body: (_) @body) @definition.method

(local_function_statement
  name: (identifier) @name
  body: (_) @body) @definition.function

(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
    (member_access_expression name: (identifier) @name)
    (member_access_expression name: (generic_name (identifier) @name))
    (conditional_access_expression (member_binding_expression name: (identifier) @name))
  ]) @reference.call

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name (identifier) @name .)
    (qualified_name (generic_name (identifier) @name) .)
  ]) @reference.call

(class_declaration
  bases: (base_list
    [
      (identifier) @name
      (generic_name (identifier) @name)
      (qualified_name (identifier) @name .)
    ] @reference.implementation)
  (#match? @name "^I[A-Z]"))

(class_declaration
  bases: (base_list
    [
      (identifier) @name
      (generic_name (identifier) @name)
      (qualified_name (identifier) @name .)
    ] @reference.class)
  (#not-match? @name "^I[A-Z]"))

(struct_declaration
  bases: (base_list
    [
      (identifier) @name
      (generic_name (identifier) @name)
      (qualified_name (identifier) @name .)
    ] @reference.implementation))

(interface_declaration
  bases: (base_list
    [
      (identifier) @name
      (generic_name (identifier) @name)
      (qualified_name (identifier) @name .)
    ] @reference.class))
