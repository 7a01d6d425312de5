"""CEL's errors: runtime error values, compile and planning errors."""

from __future__ import annotations

NO_SUCH_OVERLOAD = "no such overload"


class CelError(Exception):
    """A CEL runtime error (an error value in CEL terms)."""

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class CelCompileError(Exception):
    """The expression does not parse (or uses something this evaluator lacks)."""


class CelProgramError(CelCompileError):
    """The expression compiles but cel-go cannot plan it (a constant regex that does not compile)."""


# What a CelNotEvaluatedError names for a name the API server's CEL environment declares and
# podwhy does not evaluate (calls.py UNEVALUATED_*): this prefix and the name ("cel:timestamp").
UNEVALUATED_NAME = "cel:"


class CelNotEvaluatedError(CelError):
    """The expression needs what podwhy does not evaluate (the authorizer: the API server asks its
    authorizers, which podwhy cannot; a function of the environment podwhy lacks, named
    UNEVALUATED_NAME + its name), so its value is unknown. `what` names it."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} is not evaluated")
        self.what = what
