; Symbols and references for Ruby.
;
; Definitions: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @receiver the namespace path of `class A::B` (→ `A.B`). A `def` at the
; top of a file is a function, any other `def` a method; `def self.load` is the method `load` of
; the class it is in, and so are the methods of a `class << self` block.
;
; References: @reference.call with @name the callee: `f(x)`, `obj.m`, `Mod::Klass.m`, and
; `Klass.new(...)` as a call of `Klass`; @reference.class with @name the superclass
; (`class Invoice < Record`); @reference.implementation with @name a module mixed in with
; `include`, `prepend` or `extend`. A bare name with no arguments (`total`) is left out: Ruby does
; not say whether it is a call or a local variable.

(program
  (method
    name: (_) @name
    body: (_)? @body) @definition.function)

(body_statement
  (method
    name: (_) @name
    body: (_)? @body) @definition.method)

(argument_list
  (method
    name: (_) @name
    body: (_)? @body) @definition.method)

(singleton_method
  name: (_) @name
  body: (_)? @body) @definition.method

(class
  name: (constant) @name
  body: (_)? @body) @definition.class

(class
  name: (scope_resolution scope: (_) @receiver name: (constant) @name)
  body: (_)? @body) @definition.class

(module
  name: (constant) @name
  body: (_)? @body) @definition.module

(module
  name: (scope_resolution scope: (_) @receiver name: (constant) @name)
  body: (_)? @body) @definition.module

((call
  method: (identifier) @name) @reference.call
  (#not-any-of? @name "new" "include" "extend" "prepend" "require" "require_relative"))

(call
  receiver: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]
  method: (identifier) @_new
  (#eq? @_new "new")) @reference.call

(class
  superclass: (superclass [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ])) @reference.class

(call
  method: (identifier) @_mixin
  arguments: (argument_list [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]) @reference.implementation
  (#any-of? @_mixin "include" "prepend" "extend"))
