; Symbols for Python.
;
; Captures: @definition.<kind> the definition, @name its name, @body the body (the signature
; is the text before it), @head where the signature starts: a decorated definition's range
; includes its decorators, its signature starts at `def` / `class`.
; A function directly inside a class body is made a method by the extractor.

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body) @head) @definition.function

(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block) @body) @head) @definition.class

; References (tags convention): @reference.call with @name, the callee; @receiver, the object of a
; method call (self, a module, ...); a base class in a class's head is @reference.class.

(call function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(class_definition
  superclasses: (argument_list (identifier) @name @reference.class))

(class_definition
  superclasses: (argument_list
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.class))

; Bindings (src/parse/extractor.ts): a name whose type the code says, for the receivers of calls.
; @binding.name a parameter or variable, @binding.field a field (`self.name`, or an annotated name
; in a class body), @binding.type its annotated type or the callee of the call it is assigned
; (`s = Svc()`: the resolver keeps it only when that names a class).

(typed_parameter
  (identifier) @binding.name
  type: (type [(identifier) (attribute)] @binding.type))

(typed_default_parameter
  name: (identifier) @binding.name
  type: (type [(identifier) (attribute)] @binding.type))

(assignment
  left: (identifier) @binding.name
  type: (type [(identifier) (attribute)] @binding.type))

(assignment
  left: (identifier) @binding.name
  !type
  right: (call function: [(identifier) (attribute)] @binding.type))

(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @binding.field
        type: (type [(identifier) (attribute)] @binding.type)))))

((assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @binding.field)
  type: (type [(identifier) (attribute)] @binding.type))
  (#eq? @_self "self"))

((assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @binding.field)
  !type
  right: (call function: [(identifier) (attribute)] @binding.type))
  (#eq? @_self "self"))
