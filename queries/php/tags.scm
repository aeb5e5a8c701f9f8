; Symbols and references for PHP.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @namespace (with @name) a namespace: not a symbol, but it qualifies what
; is inside (`namespace App\Billing;` → `App.Billing.Invoice`). A statement `namespace X;` covers
; the rest of the file, so its scope is the whole file (PHP allows it only as the first statement;
; a file with several of them is qualified by all).
;
; References: @reference.call with @name the callee: `f()`, `\Ns\f()`, `$obj->m()`,
; `$obj?->m()`, `A::m()`, `parent::m()`, and a constructor `new X(...)` as a call of `X`;
; @reference.class with @name an extended class or interface (`extends`); @reference.implementation
; with @name an implemented interface (`implements`) or a used trait (`use Loggable;`).

(program
  (namespace_definition
    name: (namespace_name) @name
    !body)) @namespace

(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement)) @namespace

(function_definition
  name: (name) @name
  body: (compound_statement) @body) @definition.function

(method_declaration
  name: (name) @name
  body: (compound_statement)? @body) @definition.method

(class_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.class

(interface_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.interface

(trait_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.trait

(enum_declaration
  name: (name) @name
  body: (enum_declaration_list) @body) @definition.enum

(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.call

(member_call_expression
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  name: (name) @name) @reference.call

(scoped_call_expression
  name: (name) @name) @reference.call

((object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.call
  (#not-any-of? @name "static" "self" "parent"))

(base_clause
  [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.class

(class_interface_clause
  [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.implementation

(declaration_list
  (use_declaration
    [
      (name) @name
      (qualified_name (name) @name .)
    ]) @reference.implementation)
