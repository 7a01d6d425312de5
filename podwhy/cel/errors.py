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


class CelNotEvaluatedError(CelError):
    """The expression needs what podwhy does not evaluate (the authorizer: the API server asks its
    authorizers, which podwhy cannot), so its value is unknown. `what` names the variable."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} is not evaluated")
        self.what = what
