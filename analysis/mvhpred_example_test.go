package analysis_test

import (
	"fmt"
	"strings"

	"github.com/vcr-bench/vcr/analysis"
	"github.com/vcr-bench/vcr/human"
)

// ExampleMatchMVHPredictions reads two predictions keyed by image name and
// matches them to model-vs-human's contrast stimuli: a WordNet ID of the
// knife category and an ImageNet class outside the 16 categories (wrong).
func ExampleMatchMVHPredictions() {
	hum, _ := human.OpenMVH("builtin:mvh-contrast")
	preds, err := analysis.ReadMVHPredictions(strings.NewReader(
		"imagename,prediction\n"+
			"0001_cop_dnn_c30_knife_10_n03041632_7380.png,n03041632\n"+
			"0002_cop_dnn_c100_bicycle_10_n03792782_5966.png,n01440764\n"), "resnet50.csv", false)
	if err != nil {
		fmt.Println(err)
		return
	}
	trials, err := analysis.MatchMVHPredictions(hum, preds, "resnet50.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range trials {
		fmt.Println(t.Subject, t.Condition, t.Category, t.Response, t.Correct())
	}
	// Output:
	// resnet50 c30 knife knife true
	// resnet50 c100 bicycle n01440764 false
}
