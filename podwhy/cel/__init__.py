"""CEL as Kubernetes runs it: cel-go's language and k8s.io/apiserver/pkg/cel/library.

Covers the CEL that Kubernetes' expressions use: literals, lists and maps, the usual operators
with CEL's error-absorbing `&&`/`||`, member access and indexing, `in`, the ternary,
the `has()`, `all`/`exists`/`exists_one`/`map`/`filter` and `cel.bind` macros and their
two-variable forms, string functions (regular expressions with RE2, as Go's regexp), and the
Kubernetes `quantity()` and `semver()` libraries.

Runtime errors are raised as CelError with cel-go's wording ("no such key: x", ...),
because the API server and the DRA allocator surface them verbatim.

- `errors.py`, `values.py` (the value types and their CEL type names);
- `lexer.py`, `nodes.py`, `parser.py`: text to a parsed expression;
- `operators.py`, `functions.py` (conversions, size) and `library/` (Kubernetes' quantity and
  semver libraries, regular expressions, ext.Strings): what evaluation calls;
- `interpreter.py`: the evaluator and its runtime cost.

DRA's environment (the `device` variable) is plugins/dynamicresources/cel/.
"""
