// Package storetest is the conformance suite of experiment.Store: Run
// checks every method and error of the interface, the plans against
// Design.Plan, the tokens, the no-repeat rule, batch balancing under 200
// concurrent joins, concurrent double submissions, reopening, and Abandon;
// BenchmarkJoin and BenchmarkRespond time the hot paths. experiment/sqlite
// and experiment/postgres run it from their tests; NewDesign builds the
// small designs it uses.
package storetest
