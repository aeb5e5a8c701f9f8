; Symbols and references for Zig.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it). A container bound to a name is a definition of that name:
; `const Invoice = struct {...}` is the struct `Invoice`, and the functions inside it are its
; methods (`Invoice.init`). Unions are structs; `test "..."` blocks are not symbols.
;
; References: @reference.call with @name the callee: `f()`, `Type.f()`, `obj.m()`.

(variable_declaration
  (identifier) @name
  (struct_declaration)) @definition.struct

(variable_declaration
  (identifier) @name
  (union_declaration)) @definition.struct

(variable_declaration
  (identifier) @name
  (enum_declaration)) @definition.enum

(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function

(call_expression
  function: [
    (identifier) @name
    (field_expression member: (identifier) @name)
  ]) @reference.call
