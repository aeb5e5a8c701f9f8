; Entry points of execution flows (src/codegraph/flows.ts), for Python. Captures documented in
; queries/javascript/entries.scm.

; Flask / FastAPI / Starlette: @app.route('/x'), @app.get('/x'), @router.post('/x')
(decorated_definition
  (decorator
    (call
      function: (attribute attribute: (identifier) @entry.method)
      arguments: (argument_list . (string) @entry.path)))
  definition: (function_definition name: (identifier) @name)
  (#match? @entry.method "^(route|api_route|get|post|put|patch|delete|head|options|websocket)$")
  (#match? @entry.path "^[rbfu]*['\"]/")) @entry.route

; click / typer: @cli.command(), @click.command('name'), @app.command()
(decorated_definition
  (decorator
    (call
      function: (attribute attribute: (identifier) @_command)
      arguments: (argument_list . (string)? @entry.path)))
  definition: (function_definition name: (identifier) @name)
  (#eq? @_command "command")) @entry.command

; a script: if __name__ == "__main__":
(if_statement
  condition: (comparison_operator (identifier) @_name (string))
  (#eq? @_name "__name__")) @entry.main
