package rules_test

// The detectors register their settings with this package from their
// own files in analyze/guard (rules.RegisterDetector), so these tests,
// which load presets naming them, import it; an internal test of package
// rules cannot (analyze/guard imports rules), which is why the tests of
// this package are external.
import _ "github.com/loopgate/loopgate/analyze/guard"
