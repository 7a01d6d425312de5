"""CEL for DRA device selectors, as k8s.io/dynamic-resource-allocation/cel evaluates them.

Covers the CEL subset device selectors use: literals, lists and maps, the usual operators
with CEL's error-absorbing `&&`/`||`, member access and indexing, `in`, the ternary,
the `has()`, `all`/`exists`/`exists_one`/`map`/`filter` and `cel.bind` macros and their
two-variable forms, string functions (regular expressions with RE2, as Go's regexp), and the
Kubernetes `quantity()` and `semver()` libraries.

Runtime errors are raised as CelError with cel-go's wording ("no such key: x", ...),
because the allocator surfaces them verbatim in the Filter status.

- `errors.py`, `values.py` (the value types and their CEL type names);
- `lexer.py`, `nodes.py`, `parser.py`: text to a parsed expression;
- `operators.py`, `functions.py` (conversions, size) and `library/` (Kubernetes' quantity and
  semver libraries, regular expressions, ext.Strings): what evaluation calls;
- `interpreter.py`: the evaluator;
- `compile.py`: selectors compiled once and cached, the `device` variable, a selector's result.
"""
