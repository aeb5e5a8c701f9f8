; Entry points of execution flows (src/codegraph/flows.ts), for Rust: fn main.
(function_item name: (identifier) @name (#eq? @name "main")) @entry.main
