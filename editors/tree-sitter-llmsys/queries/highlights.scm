; Highlights for .llmsys files. Patterns are disjoint (no node gets two
; captures), so editors that prefer the first or the last match agree.

(comment) @comment
(string) @string
[(number) (number_word)] @number
(unit) @type.builtin
(boolean) @constant.builtin

; Declarations: `model gpt3 extends base { ... }`, `sweep s over pretrain`.
(entity_declaration kind: (identifier) @keyword)
(entity_declaration name: (identifier) @type)
(entity_declaration parent: (dotted_name (identifier) @type))
(entity_declaration target: (dotted_name (identifier) @type))
(block_member parent: (dotted_name (identifier) @type))
(import_declaration module: (dotted_name (identifier) @module))

; Fields: the path before `=`, `{`, `<=`, `in`.
(assignment field: (dotted_name (identifier) @property))
(block_member field: (dotted_name (identifier) @property))
(bound_member field: (dotted_name (identifier) @property))
(axis_member field: (dotted_name (identifier) @property))

(call function: (identifier) @function.builtin)
(reference (identifier) @variable)

[
  "import" "extends" "over" "expect" "in" "where"
  "minimize" "maximize" "pareto" "keep" "step"
] @keyword

["and" "or" "not"] @keyword.operator

["=" "<" "<=" ">" ">=" "==" "!=" "+" "-" "*" "/" ".."] @operator

["{" "}" "(" ")" "[" "]"] @punctuation.bracket
["," ";" "."] @punctuation.delimiter
