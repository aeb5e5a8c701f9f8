; Entry points of execution flows (src/codegraph/flows.ts), for JavaScript and TypeScript.
;
; Captures: @entry.route, @entry.command or @entry.main on the registration (its kind); @name the
; handler, resolved like a call from where the registration is (@receiver: `handlers.list`); no
; @name: the handler is written inline and the enclosing function (or the file's <module>) is the
; entry. @entry.method (`get`, `post`, ...) and @entry.path (`"/users"`, a command's name) make the
; flow's label. Several patterns may match one registration: the one naming a handler and a path wins.
;
; A file this does not match has no match of any pattern below (a route's path is a string starting
; with `/`; a command's registration calls `.command`): the query is neither compiled nor run on it
; (src/parse/registry.ts, entriesHint). Keep it true of every pattern added.
; hint: ['"`]/|\bcommand\b

; express / hono / koa-router / fastify: app.get('/users', auth, listUsers), router.post('/x', h.create)
(call_expression
  function: (member_expression
    property: (property_identifier) @entry.method)
  arguments: (arguments
    .
    [(string) (template_string)] @entry.path
    (identifier) @name
    .)
  (#match? @entry.method "^(get|post|put|patch|delete|del|head|options|all)$")
  (#match? @entry.path "^['\"`]/")) @entry.route

(call_expression
  function: (member_expression
    property: (property_identifier) @entry.method)
  arguments: (arguments
    .
    [(string) (template_string)] @entry.path
    (member_expression object: (_) @receiver property: (property_identifier) @name)
    .)
  (#match? @entry.method "^(get|post|put|patch|delete|del|head|options|all)$")
  (#match? @entry.path "^['\"`]/")) @entry.route

; the handler inline: app.get('/users', (req, res) => { ... })
(call_expression
  function: (member_expression
    property: (property_identifier) @entry.method)
  arguments: (arguments
    .
    [(string) (template_string)] @entry.path
    [(arrow_function) (function_expression)]
    .)
  (#match? @entry.method "^(get|post|put|patch|delete|del|head|options|all)$")
  (#match? @entry.path "^['\"`]/")) @entry.route

; commander / yargs-style: program.command('serve').action(runServe)
(call_expression
  function: (member_expression
    object: (call_expression
      function: (member_expression property: (property_identifier) @_command)
      arguments: (arguments . (string) @entry.path))
    property: (property_identifier) @_action)
  arguments: (arguments . (identifier) @name)
  (#eq? @_command "command")
  (#eq? @_action "action")) @entry.command
