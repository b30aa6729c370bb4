package main

import "strings"

// modelNameWithoutServer refuses --model-name without --server in eval and
// requirements check, where it is the served model's name, and points to
// the flag that names results (analyze's and contrast's --model-name).
const modelNameWithoutServer = "--model-name needs --server URL: here it is the name the server serves the model under; " +
	"to name a model's results, give vcr analyze --model-name"

// jsonTakesNoFile returns a hint for a command whose --json is a switch
// (print JSON on standard output) when one positional argument too many
// ends in .json: the user most likely wrote --json FILE.json, as
// requirements check and experiment loadtest take it.
func jsonTakesNoFile(asJSON bool, pos []string, want int) string {
	if !asJSON || len(pos) != want+1 {
		return ""
	}
	for _, a := range pos {
		if strings.HasSuffix(strings.ToLower(a), ".json") {
			return "; --json takes no file name here (it prints JSON on standard output): drop " + a + " or redirect, > " + a
		}
	}
	return ""
}
