package conformance

// KnownFailures are the core tests restyplane does not pass yet, each with why. `go test`
// (and so CI) skips them, so that every other core test guards against a regression;
// `make conformance` runs them all and its report lists them as failed. None today: keep
// it for the day a new suite release brings a test restyplane fails.
var KnownFailures = map[string]string{}
