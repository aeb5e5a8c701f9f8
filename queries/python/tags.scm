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
