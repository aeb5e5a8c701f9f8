; Symbols and references for C.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it). Only definitions with a body are symbols: a prototype or a `struct x;`
; forward declaration is not (it would make every function defined in a .c file and declared in a
; .h file ambiguous). A function-like macro is a function. `typedef struct tag {...} name;` is the
; struct `tag`; an anonymous struct takes its typedef's name.
;
; References: @reference.call with @name the callee (`f(x)`, `ops->release(p)`, `s.fn(p)`).

(function_definition
  declarator: (function_declarator declarator: (identifier) @name . parameters: (_))
  body: (compound_statement) @body) @definition.function

; `LUA_API lua_CFunction lua_atpanic (...) {`: an unknown macro before the return type makes the
; parser take the type for the name and put the name in an ERROR node.
(function_definition
  declarator: (function_declarator
    declarator: (identifier)
    .
    (ERROR . (identifier) @name .)
    .
    parameters: (_))
  body: (compound_statement) @body) @definition.function

; Functions returning pointers: `char *f(void)`, `char **f(void)`.
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))
  body: (compound_statement) @body) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
  body: (compound_statement) @body) @definition.function

; A function returning a function pointer: `void (*f(int kind))(int)`.
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name))))
  body: (compound_statement) @body) @definition.function

(preproc_function_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

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

; Other typedefs (`typedef int id_t;`, `typedef struct s s;`, `typedef struct s *s_ptr;`,
; `typedef int (*cb_t)(int);`); a typedef that defines a struct body is the struct above.
(type_definition
  type: (_ !body)
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression field: (field_identifier) @name)) @reference.call
