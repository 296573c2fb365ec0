"""Prints the counts of a JUnit file as a real parser (junitparser) reads them, as JSON:
tests, failed, skipped, errors, flaky (test cases with a flakyFailure), passed."""
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped

xml = JUnitXml.fromfile(sys.argv[1])
counts = {"tests": 0, "failed": 0, "skipped": 0, "errors": 0, "flaky": 0, "passed": 0}
for suite in xml:
    for case in suite:
        counts["tests"] += 1
        kinds = {type(r) for r in case.result}
        flaky = any(child.tag == "flakyFailure" for child in case._elem)
        if Failure in kinds:
            counts["failed"] += 1
        elif Skipped in kinds:
            counts["skipped"] += 1
        elif Error in kinds:
            counts["errors"] += 1
        elif flaky:
            counts["flaky"] += 1
        else:
            counts["passed"] += 1
print(json.dumps(counts))
