"""How a policy podwhy did not evaluate is worded when what it lacks is a CEL function of the API
server's environment (CelNotEvaluatedError's `cel:<name>`), not a variable it does not hold."""

from __future__ import annotations

from podwhy.cluster.placementreasons import OpenPolicy
from podwhy.report.words.admission import gap_text, policy_text


def test_a_cel_function_podwhy_lacks_is_named() -> None:
    assert gap_text("cel:timestamp") == "CEL's timestamp, which podwhy does not evaluate"
    assert gap_text("authorizer") == "the authorizer (who may do what), which podwhy cannot ask"
    policy = OpenPolicy("p", "b", "cel:timestamp")
    assert policy_text(policy) == (
        "ValidatingAdmissionPolicy 'p' with binding 'b' reads CEL's timestamp, which podwhy does not evaluate"
    )
