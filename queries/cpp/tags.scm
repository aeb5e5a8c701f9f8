; Symbols and references for C++.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @namespace (with @name) a named namespace: not a symbol, but it qualifies
; what is inside (`namespace geo { class Circle }` → `geo.Circle`; `namespace a::b` → `a.b`),
; @receiver the class (or namespace) path of an out-of-class definition, which qualifies it:
; `double Circle::area() const {...}` → `Circle.area` (inside `namespace geo`: `geo.Circle.area`).
; Only definitions with a body are symbols (not prototypes, not member declarations). A function
; directly inside a class or struct is made a method by the extractor; a templated definition
; starts at its `template <...>` line. A function-like macro is a function.
;
; References: @reference.call with @name the callee: `f()`, `obj.m()`, `ptr->m()`, `A::b()`,
; `std::make_unique<T>()` (not the casts), and a constructor `new X(...)` as a call of `X`; @reference.class with
; @name a base class (`class Circle : public Shape`).

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name
  body: (declaration_list)) @namespace

; Functions and methods, by how their declarator nests (plain, `T *f()`, `T &f()`).
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name
    .
    parameters: (_))
  body: (_) @body) @definition.function

; `API_MACRO Type name(...) {`: an unknown macro before the return type makes the parser take the
; type for the name and put the name in an ERROR node.
(function_definition
  declarator: (function_declarator
    declarator: (identifier)
    .
    (ERROR . (identifier) @name .)
    .
    parameters: (_))
  body: (compound_statement) @body) @definition.function

(function_definition
  declarator: [
    (pointer_declarator declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]
  body: (_) @body) @definition.function

; Out-of-class definitions, one pattern per depth of the qualified name.
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
      name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
  body: (_) @body) @definition.method

(function_definition
  declarator: [
    (pointer_declarator declarator: (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
        name: [(identifier) (field_identifier) (operator_name)] @name)))
    (reference_declarator (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
        name: [(identifier) (field_identifier) (operator_name)] @name)))
  ]
  body: (_) @body) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
      name: (qualified_identifier
        scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
        name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
  body: (_) @body) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (namespace_identifier) @receiver
      name: (qualified_identifier
        scope: (namespace_identifier) @receiver
        name: (qualified_identifier
          scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
          name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))))
  body: (_) @body) @definition.method

(template_declaration
  (function_definition
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name)] @name)
    body: (_) @body)) @definition.function

(template_declaration
  (function_definition
    declarator: (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
        name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    body: (_) @body)) @definition.method

(preproc_function_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.function

(class_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(template_declaration
  (class_specifier
    name: (type_identifier) @name
    body: (field_declaration_list) @body)) @definition.class

(template_declaration
  (struct_specifier
    name: (type_identifier) @name
    body: (field_declaration_list) @body)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.enum

(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  type: (_ !body)
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type

((call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (qualified_identifier name: (identifier) @name)
    (qualified_identifier name: (qualified_identifier name: (identifier) @name))
    (template_function name: (identifier) @name)
    (qualified_identifier name: (template_function name: (identifier) @name))
    (field_expression field: (template_method name: (field_identifier) @name))
  ]) @reference.call
  (#not-any-of? @name "static_cast" "dynamic_cast" "reinterpret_cast" "const_cast"))

(new_expression
  type: [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier) @name)
    (template_type name: (type_identifier) @name)
  ]) @reference.call

(base_class_clause
  [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier) @name)
    (template_type name: (type_identifier) @name)
  ]) @reference.class
