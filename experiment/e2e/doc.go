// Package e2e holds the end-to-end checks of the experiment web app, as a
// person would run them: a load test with hundreds of simulated
// participants against a real server on loopback, a crash test that
// kill -9s the server in the middle of one, a browser test that drives
// headless Chromium through a whole session and measures the stimulus
// timing in the page, and the screenshots of the participant and admin
// pages. The tests are in the _test.go files; this package's exported
// helpers (a hand-made test design, a server on loopback, finding
// Chromium) are what they share. docs/experiment-testing.md says how to
// run each check and what it measured.
package e2e
