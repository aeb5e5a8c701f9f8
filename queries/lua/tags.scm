; Symbols and references for Lua.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @receiver the table a function is stored in, which qualifies it:
; `function M.new()` and `function M:pay()` → `M.new`, `M.pay`; `function M.util.f()` → `M.util.f`.
; `local x = function() end` is the function `x`.
;
; References: @reference.call with @name the callee: `f()`, `M.f()`, `obj:m()`.

(local_function_definition_statement
  name: (identifier) @name
  body: (block)? @body) @definition.function

(function_definition_statement
  name: (identifier) @name
  body: (block)? @body) @definition.function

(function_definition_statement
  name: (variable
    table: (_) @receiver
    [field: (identifier) @name method: (identifier) @name])
  body: (block)? @body) @definition.method

(local_variable_declaration
  (variable_list . (variable name: (identifier) @name) .)
  (expression_list . value: (function_definition body: (block)? @body) .)) @definition.function

(call
  function: [
    (variable name: (identifier) @name)
    (variable field: (identifier) @name)
    (variable method: (identifier) @name)
  ]) @reference.call
